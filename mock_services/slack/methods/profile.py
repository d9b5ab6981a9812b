"""users.profile.get/set, users.setPhoto/deletePhoto, users.identity and users.lookupByEmail: who a
user is."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel

from mock_services.slack.call import SlackCall
from mock_services.slack.errors import SlackError
from mock_services.slack.serializers import (PROFILE_FIELDS, profile_json, user_json, workspace_roles, workspace_team,
                                             workspace_team_id)
from mock_services.store import Row

MAX_FIELD = 250


class GetArgs(BaseModel):
    user: str | None = None


class SetArgs(BaseModel):
    user: str | None = None
    profile: Any = None
    name: str | None = None
    value: Any = None


class PhotoArgs(BaseModel):
    image: bytes | str
    crop_x: int | None = None
    crop_y: int | None = None
    crop_w: int | None = None


# What an image file starts with, for the formats Slack takes for a profile photo.
IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a")


class EmailArgs(BaseModel):
    email: str


def get_profile(call: SlackCall) -> dict:
    args = call.args(GetArgs)
    user = call.other_user(args.user) if args.user else call.user
    return {"profile": profile_json(user, workspace_team_id(call.state))}


def requested_changes(args: SetArgs) -> dict[str, Any]:
    """The fields to set: a `profile` object (or its JSON), or one `name` and `value`."""
    profile = args.profile
    if isinstance(profile, str) and profile.strip():
        try:
            profile = json.loads(profile)
        except json.JSONDecodeError:
            raise SlackError("invalid_profile") from None
    if profile in (None, ""):
        if not args.name:
            raise SlackError("invalid_profile")
        profile = {args.name: args.value}
    if not isinstance(profile, dict):
        raise SlackError("invalid_profile")
    return profile


def checked_value(field: str, value: Any) -> Any:
    if field == "status_expiration":
        if not isinstance(value, (int, str)) or not str(value).isdigit():
            raise SlackError("invalid_profile")
        return int(value) if int(value) < 2**53 else 0
    if not isinstance(value, str):
        raise SlackError("invalid_profile")
    if len(value) > MAX_FIELD:
        raise SlackError("invalid_profile", field=field)
    return value


def target_user(call: SlackCall, user_ref: str | None) -> Row:
    if not user_ref or user_ref == call.user_id:
        return call.user
    user = call.other_user(user_ref)
    if not call.user.get("is_admin"):
        raise SlackError("not_admin")
    return user


def set_profile(call: SlackCall) -> dict:
    args = call.args(SetArgs)
    user = target_user(call, args.user)
    changes = requested_changes(args)
    unknown = sorted(set(changes) - set(PROFILE_FIELDS))
    if unknown:
        raise SlackError("invalid_profile", field=unknown[0])
    updated = {**user, **{field: checked_value(field, value) for field, value in changes.items()}}
    return {"profile": profile_json(call.state.update("users", updated), workspace_team_id(call.state))}


def image_bytes(part: bytes | str) -> bytes:
    """A multipart part that must be a PNG, JPEG or GIF image, else Slack's `bad_image`."""
    data = part.encode() if isinstance(part, str) else part
    if not data.startswith(IMAGE_MAGIC):
        raise SlackError("bad_image")
    return data


def set_photo(call: SlackCall) -> dict:
    """The photo is the multipart part `image`; the profile's image URLs then name its hash."""
    data = image_bytes(call.args(PhotoArgs).image)
    user = call.state.update("users", {**call.user, "photo_sha1": hashlib.sha1(data).hexdigest()})
    profile = profile_json(user, workspace_team_id(call.state))
    return {"profile": {"avatar_hash": user["photo_sha1"][:12],
                        **{k: v for k, v in profile.items() if k.startswith("image_")}}}


def delete_photo(call: SlackCall) -> dict:
    call.state.update("users", {**call.user, "photo_sha1": None})
    return {}


def identity(call: SlackCall) -> dict:
    user = call.user
    team = workspace_team(call.state)
    return {"user": {"name": user.get("real_name") or user.get("username", ""), "id": user["user_id"],
                     "email": user.get("email")},
            "team": {"id": team.get("team_id", ""), "name": team.get("team_name", "")}}


def lookup_by_email(call: SlackCall) -> dict:
    email = call.args(EmailArgs).email.strip().lower()
    for user in call.state.rows("users"):
        if (user.get("email") or "").lower() == email:
            return {"user": user_json(user, workspace_team_id(call.state),
                                      workspace_roles(call.state).get(user["user_id"], "member"))}
    raise SlackError("users_not_found")


METHODS = {"users.profile.get": get_profile, "users.profile.set": set_profile, "users.identity": identity,
           "users.lookupByEmail": lookup_by_email, "users.setPhoto": set_photo, "users.deletePhoto": delete_photo}
