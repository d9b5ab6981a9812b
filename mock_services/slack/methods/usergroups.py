"""usergroups.* and usergroups.users.*: named groups of users (@handles)."""

from __future__ import annotations

import re

from pydantic import BaseModel

from mock_services.slack.call import SlackCall, id_list
from mock_services.slack.errors import SlackError
from mock_services.slack.ids import new_id, now
from mock_services.store import Row
from mock_services.slack.serializers import workspace_team

HANDLE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,20}$")


class CreateArgs(BaseModel):
    name: str
    handle: str | None = None
    description: str | None = None
    channels: str | list[str] | None = None
    include_count: bool = False


class UpdateArgs(BaseModel):
    usergroup: str
    name: str | None = None
    handle: str | None = None
    description: str | None = None
    channels: str | list[str] | None = None
    include_count: bool = False


class GroupArgs(BaseModel):
    usergroup: str
    include_count: bool = False
    include_disabled: bool = False


class ListArgs(BaseModel):
    include_users: bool = False
    include_count: bool = False
    include_disabled: bool = False


class UsersUpdateArgs(BaseModel):
    usergroup: str
    users: str | list[str]
    include_count: bool = False


def members(call: SlackCall, group: Row) -> list[str]:
    return [m["user_id"] for m in call.state.rows("user_group_members", usergroup_id=group["usergroup_id"])]


def group_json(call: SlackCall, group: Row, include_users: bool = False, include_count: bool = False) -> dict:
    body = {"id": group["usergroup_id"], "team_id": group.get("team_id"), "is_usergroup": True,
            "is_subteam": True, "name": group["name"], "description": group.get("description") or "",
            "handle": group["handle"], "is_external": False, "date_create": group["date_create"],
            "date_update": group["date_update"], "date_delete": group["date_delete"], "auto_type": None,
            "created_by": group["created_by"], "updated_by": group["updated_by"], "deleted_by": group.get("deleted_by"),
            "prefs": {"channels": group.get("channel_ids") or [], "groups": []}}
    if include_users:
        body["users"] = members(call, group)
    if include_count:
        body["user_count"] = len(members(call, group))
    return body


def checked_names(call: SlackCall, name: str | None, handle: str | None, current: Row | None = None) -> None:
    others = [g for g in call.state.rows("user_groups") if current is None or g["usergroup_id"] != current["usergroup_id"]]
    if name is not None and (not name.strip() or any(g["name"] == name for g in others)):
        raise SlackError("name_already_exists" if name.strip() else "invalid_name")
    if handle is not None:
        if not HANDLE.fullmatch(handle):
            raise SlackError("invalid_handle")
        taken = any(g["handle"] == handle for g in others) or call.state.first("users", username=handle)
        if taken:
            raise SlackError("handle_already_exists")


def checked_channels(call: SlackCall, value: str | list[str] | None) -> list[str]:
    return [call.channel(ref)["channel_id"] for ref in id_list(value)]


def group(call: SlackCall, usergroup_id: str) -> Row:
    found = call.state.first("user_groups", usergroup_id=usergroup_id)
    if found is None:
        raise SlackError("no_such_subteam")
    return found


def create(call: SlackCall) -> dict:
    args = call.args(CreateArgs)
    handle = args.handle or re.sub(r"[^a-z0-9._-]", "-", args.name.lower())[:21].strip("-")
    checked_names(call, args.name, handle)
    team = workspace_team(call.state)
    row = call.state.insert("user_groups", {
        "usergroup_id": new_id("S"), "team_id": team.get("team_id"), "name": args.name, "handle": handle,
        "description": args.description or "", "channel_ids": checked_channels(call, args.channels),
        "created_by": call.user_id, "updated_by": call.user_id, "date_create": now(), "date_update": now(),
        "date_delete": 0})
    return {"usergroup": group_json(call, row, include_count=args.include_count)}


def update(call: SlackCall) -> dict:
    args = call.args(UpdateArgs)
    row = group(call, args.usergroup)
    checked_names(call, args.name, args.handle, row)
    changes = {k: v for k, v in {"name": args.name, "handle": args.handle, "description": args.description}.items()
               if v is not None}
    if args.channels is not None:
        changes["channel_ids"] = checked_channels(call, args.channels)
    row = call.state.update("user_groups", {**row, **changes, "updated_by": call.user_id, "date_update": now()})
    return {"usergroup": group_json(call, row, include_count=args.include_count)}


def set_enabled(call: SlackCall, enabled: bool) -> dict:
    args = call.args(GroupArgs)
    row = group(call, args.usergroup)
    if (row["date_delete"] == 0) == enabled:
        raise SlackError("already_enabled" if enabled else "already_disabled")
    row = call.state.update("user_groups", {**row, "date_delete": 0 if enabled else now(),
                                            "deleted_by": None if enabled else call.user_id,
                                            "updated_by": call.user_id, "date_update": now()})
    return {"usergroup": group_json(call, row, include_count=args.include_count)}


def list_groups(call: SlackCall) -> dict:
    args = call.args(ListArgs)
    rows = [g for g in call.state.rows("user_groups") if args.include_disabled or g["date_delete"] == 0]
    return {"usergroups": [group_json(call, g, args.include_users, args.include_count) for g in rows]}


def list_users(call: SlackCall) -> dict:
    args = call.args(GroupArgs)
    row = group(call, args.usergroup)
    if row["date_delete"] and not args.include_disabled:
        raise SlackError("no_such_subteam")
    return {"users": members(call, row)}


def update_users(call: SlackCall) -> dict:
    args = call.args(UsersUpdateArgs)
    row = group(call, args.usergroup)
    wanted = list(dict.fromkeys(call.other_user(u)["user_id"] for u in id_list(args.users)))
    if not wanted:
        raise SlackError("invalid_users")
    for membership in call.state.rows("user_group_members", usergroup_id=row["usergroup_id"]):
        if membership["user_id"] not in wanted:
            call.state.delete("user_group_members", membership)
    current = set(members(call, row))
    for user_id in wanted:
        if user_id not in current:
            call.state.insert("user_group_members", {"usergroup_id": row["usergroup_id"], "user_id": user_id})
    row = call.state.update("user_groups", {**row, "updated_by": call.user_id, "date_update": now()})
    return {"usergroup": group_json(call, row, include_users=True, include_count=args.include_count)}


METHODS = {"usergroups.create": create, "usergroups.update": update,
           "usergroups.disable": lambda call: set_enabled(call, False),
           "usergroups.enable": lambda call: set_enabled(call, True), "usergroups.list": list_groups,
           "usergroups.users.list": list_users, "usergroups.users.update": update_users}
