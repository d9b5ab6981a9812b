"""users.*"""

from __future__ import annotations

from pydantic import BaseModel

from mock_services.slack.call import SlackCall
from mock_services.slack.pagination import paginate
from mock_services.slack.errors import SlackError
from mock_services.slack.methods.conversations import CHANNEL_TYPES, channel_type
from mock_services.slack.serializers import channel_json, user_json, workspace_roles, workspace_team_id


class ListArgs(BaseModel):
    limit: int = 0
    cursor: str | None = None


class InfoArgs(BaseModel):
    user: str


class ConversationsArgs(BaseModel):
    user: str | None = None
    types: str = "public_channel"
    exclude_archived: bool = False
    limit: int = 100
    cursor: str | None = None


def list_users(call: SlackCall) -> dict:
    args = call.args(ListArgs)
    page, next_cursor = paginate(call.state.rows("users"), args.cursor, args.limit or 1000)
    team_id = workspace_team_id(call.state)
    roles = workspace_roles(call.state)
    return {"members": [user_json(u, team_id, roles.get(u["user_id"], "member")) for u in page],
            "response_metadata": {"next_cursor": next_cursor}}


def info(call: SlackCall) -> dict:
    user = call.other_user(call.args(InfoArgs).user)
    role = workspace_roles(call.state).get(user["user_id"], "member")
    return {"user": user_json(user, workspace_team_id(call.state), role)}


def conversations(call: SlackCall) -> dict:
    args = call.args(ConversationsArgs)
    user_id = call.other_user(args.user).get("user_id") if args.user else call.user_id
    wanted = {t.strip() for t in args.types.split(",") if t.strip()}
    if not wanted <= CHANNEL_TYPES:
        raise SlackError("invalid_types")
    mine = [c for c in call.state.rows("channels")
            if call.is_member(c, user_id) and channel_type(c) in wanted
            and not (args.exclude_archived and c.get("is_archived"))]
    page, next_cursor = paginate(mine, args.cursor, args.limit)
    return {"channels": [channel_json(call.state, c, call.user_id) for c in page],
            "response_metadata": {"next_cursor": next_cursor}}


METHODS = {"users.list": list_users, "users.info": info, "users.conversations": conversations}
