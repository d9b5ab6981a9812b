"""Microsoft Teams over the pack generated from Microsoft Graph's metadata: teams and their
channels, channel messages and their replies, chats (one-on-one and group) and their messages.
Who is in a team or chat is the row's member list (user ids), which says whose `joinedTeams`
and `chats` list it; a message is sent as the acting user. Chats and channels list only what the
user may see: a chat they are not in is Graph's 404, as a team they are not in is."""

from __future__ import annotations

import re
from typing import Any

from mock_services import clock
from mock_services.rest import graph
from mock_services.rest.errors import RestError
from mock_services.rest.graph import ALIASES, EXTRA_ROUTES, credentials, identify, prepare
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import Call
from mock_services.store import Row

TEAMS, CHANNELS, CHANNEL_MESSAGES = "teams_teams", "teams_channels", "teams_channel_messages"
CHATS, CHAT_MESSAGES, USERS = "teams_chats", "teams_chat_messages", "teams_users"
IDS = {TEAMS: {"kind": "uuid"}, USERS: {"kind": "uuid"}}
MISSING = {TEAMS: "No team found with Group Id {key}", CHANNELS: "Channel not found",
           CHANNEL_MESSAGES: "Message not found", CHATS: "Chat not found", CHAT_MESSAGES: "Message not found",
           USERS: graph.NO_USER}
error_body = graph.error_body_for("NotFound")
MESSAGE = {"$ref": "#/components/schemas/microsoft.graph.chatMessage"}
BOUND_USER = re.compile(r"users\('([^']+)'\)|users/([^/?]+)$")


def _message_id(call: Call) -> str:
    """Teams' message ids are the milliseconds they were sent at."""
    taken = {r["id"] for r in call.state.rows(CHANNEL_MESSAGES) + call.state.rows(CHAT_MESSAGES)}
    found = int(clock.now() * 1000)
    while str(found) in taken:
        found += 1
    return str(found)


def _sent(resources: Resources, call: Call, table: str, where: dict) -> Any:
    fields = resources.body(call)
    if not (fields.get("body") or {}).get("content"):
        raise RestError(400, "BadRequest", "Missing body content", details={"code": "BadRequest"})
    at = graph.now()
    row = {**fields, "id": _message_id(call), "messageType": "message", "createdDateTime": at,
           "lastModifiedDateTime": at, "from": graph.identity(graph.me(call)), "importance": fields.get("importance")
           or "normal", "locale": "en-us", "replyToId": None, "attachments": fields.get("attachments") or [],
           "mentions": fields.get("mentions") or [], "reactions": [], **where}
    call.state.insert(table, row)
    call.status = 201
    return resources.present(call, row, MESSAGE)


def team(call: Call) -> Row:
    found = call.state.first(TEAMS, id=call.params["team_id"])
    if found is None or call.user not in found.get("members", []):
        raise RestError(404, "NotFound", MISSING[TEAMS].format(key=call.params["team_id"]))
    return found


def channel(call: Call) -> Row:
    team(call)
    found = call.state.first(CHANNELS, id=call.params["channel_id"], team_id=call.params["team_id"])
    if found is None:
        raise RestError(404, "NotFound", MISSING[CHANNELS])
    return found


def chat(call: Call) -> Row:
    found = call.state.first(CHATS, id=call.params["chat_id"])
    if found is None or call.user not in found.get("members", []):
        raise RestError(404, "NotFound", MISSING[CHATS])
    return found


def post_channel_message(resources: Resources, call: Call) -> Any:
    where = channel(call)
    ids = {"team_id": where["team_id"], "channel_id": where["id"],
           "channelIdentity": {"teamId": where["team_id"], "channelId": where["id"]}}
    return _sent(resources, call, CHANNEL_MESSAGES, ids)


def root_message(call: Call) -> Row:
    channel(call)
    found = call.state.first(CHANNEL_MESSAGES, id=call.params["chatMessage_id"], channel_id=call.params["channel_id"])
    if found is None or found.get("replyToId"):
        raise RestError(404, "NotFound", MISSING[CHANNEL_MESSAGES])
    return found


def post_reply(resources: Resources, call: Call) -> Any:
    parent = root_message(call)
    ids = {"team_id": parent["team_id"], "channel_id": parent["channel_id"], "channelIdentity":
           parent.get("channelIdentity"), "replyToId": parent["id"]}
    return _sent(resources, call, CHANNEL_MESSAGES, ids)


def list_channel_messages(resources: Resources, call: Call) -> Any:
    """A channel's messages (not their replies), newest first, as Teams lists them."""
    channel(call)
    rows = [r for r in call.state.rows(CHANNEL_MESSAGES, channel_id=call.params["channel_id"]) if not r.get("replyToId")]
    return graph.listing(resources, call, rows, "createdDateTime desc")


def list_replies(resources: Resources, call: Call) -> Any:
    parent = root_message(call)
    return graph.listing(resources, call, call.state.rows(CHANNEL_MESSAGES, replyToId=parent["id"]),
                         "createdDateTime desc")


def post_chat_message(resources: Resources, call: Call) -> Any:
    where = chat(call)
    return _sent(resources, call, CHAT_MESSAGES, {"chat_id": where["id"], "chatId": where["id"]})


def list_chat_messages(resources: Resources, call: Call) -> Any:
    chat(call)
    return graph.listing(resources, call, call.state.rows(CHAT_MESSAGES, chat_id=call.params["chat_id"]),
                         "createdDateTime desc")


def _member(call: Call, given: dict) -> str:
    """The user a conversation member names (`user@odata.bind` to `users('id')`, or `userId`)."""
    bound = str(given.get("user@odata.bind") or given.get("userId") or "")
    matched = BOUND_USER.search(bound)
    key = next((g for g in matched.groups() if g), "") if matched else bound
    found = graph.user_row(call.state, USERS, key)
    if found is None:
        raise RestError(400, "BadRequest", f"Invalid user '{key}' in the chat's members.", details={"code": "BadRequest"})
    return found["id"]


def create_chat(resources: Resources, call: Call) -> Any:
    """A chat of the members the body binds (the caller must be one); a one-on-one chat that
    exists already is answered again, as Graph answers it."""
    given = call.body if isinstance(call.body, dict) else {}
    members = list(dict.fromkeys(_member(call, m) for m in given.get("members") or [] if isinstance(m, dict)))
    kind = str(given.get("chatType") or "")
    if call.user not in members or kind.lower() not in ("oneonone", "group") or \
            (kind.lower() == "oneonone" and len(members) != 2):
        raise RestError(400, "BadRequest", "A chat needs its chatType and members, the caller among them "
                                           "(two for a oneOnOne chat).", details={"code": "BadRequest"})
    schema = resources.response(call.operation.short_id)[1]
    if kind.lower() == "oneonone":
        found = next((c for c in call.state.rows(CHATS, chatType="oneOnOne") if set(c.get("members", [])) ==
                      set(members)), None)
        if found is not None:
            return resources.present(call, found, schema)
    at = graph.now()
    row = {"id": f"19:{clock.token_hex(16)}@thread.v2", "topic": given.get("topic"),
           "chatType": "oneOnOne" if kind.lower() == "oneonone" else "group", "createdDateTime": at,
           "lastUpdatedDateTime": at, "tenantId": graph.TENANT, "webUrl": "", "members": members}
    call.state.insert(CHATS, row)
    call.status = 201
    return resources.present(call, row, schema)


def list_chats(resources: Resources, call: Call) -> Any:
    user = call.params.get("user_id") or call.user
    return graph.listing(resources, call, [c for c in call.state.rows(CHATS) if user in c.get("members", [])])


def get_chat(resources: Resources, call: Call) -> Any:
    return resources.present(call, chat(call), resources.response(call.operation.short_id)[1])


def joined_teams(resources: Resources, call: Call) -> Any:
    user = call.params.get("user_id") or call.user
    return graph.listing(resources, call, [t for t in call.state.rows(TEAMS) if user in t.get("members", [])])


def get_team(resources: Resources, call: Call) -> Any:
    return resources.present(call, team(call), resources.response(call.operation.short_id)[1])


def list_channels(resources: Resources, call: Call) -> Any:
    team(call)
    return graph.listing(resources, call, call.state.rows(CHANNELS, team_id=call.params["team_id"]))


def guarded(check: Any, action: str) -> Any:
    """The generic `action` after `check` (the caller is in the team or chat)."""
    def handler(resources: Resources, call: Call) -> Any:
        check(call)
        return getattr(resources, action)(call)
    return handler


HANDLERS = {"team.channel_CreateMessage": post_channel_message, "team.channel_ListMessage": list_channel_messages,
            "team.channel.message_CreateReply": post_reply, "team.channel.message_ListReply": list_replies,
            "chat_CreateMessage": post_chat_message, "chat_ListMessage": list_chat_messages,
            "chat_CreateChat": create_chat, "chat_ListChat": list_chats, "user_ListChat": list_chats,
            "chat_GetChat": get_chat, "user_ListJoinedTeam": joined_teams, "team_ListTeam": joined_teams,
            "team_GetTeam": get_team, "team_ListChannel": list_channels,
            "team_GetChannel": guarded(team, "read"), "team_CreateChannel": guarded(team, "create"),
            "team_UpdateChannel": guarded(team, "update"), "team.channel_GetMessage": guarded(channel, "read"),
            "team.channel_UpdateMessage": guarded(channel, "update"), "chat_GetMessage": guarded(chat, "read"),
            "chat_UpdateMessage": guarded(chat, "update"), "chat_UpdateChat": guarded(chat, "update")}

__all__ = ["ALIASES", "EXTRA_ROUTES", "HANDLERS", "IDS", "MISSING", "credentials", "error_body", "identify",
           "prepare"]
