"""users.profile.get/set, users.identity and users.lookupByEmail: who a user is."""

from __future__ import annotations

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
           "users.lookupByEmail": lookup_by_email}
