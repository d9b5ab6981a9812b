"""chat.*: messages posted, edited, deleted, linked to, and shown to one user only."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from mock_services import clock
from mock_services.slack.call import SlackCall
from mock_services.slack.errors import SlackError
from mock_services.slack.ids import new_ts
from mock_services.slack.methods.membership import conversation_with
from mock_services.slack.serializers import ADMIN_ROLES, message_json, workspace_domain, workspace_roles
from mock_services.store import EnvState, Row

MAX_TEXT = 40_000


class PostMessageArgs(BaseModel):
    channel: str
    text: str | None = None
    blocks: Any = None
    attachments: Any = None
    thread_ts: str | None = None
    reply_broadcast: bool = False
    metadata: Any = None


class UpdateArgs(BaseModel):
    channel: str
    ts: str
    text: str | None = None
    blocks: Any = None


class DeleteArgs(BaseModel):
    channel: str
    ts: str


class PermalinkArgs(BaseModel):
    channel: str
    message_ts: str


class EphemeralArgs(PostMessageArgs):
    user: str


class MeMessageArgs(BaseModel):
    channel: str
    text: str


class UnfurlArgs(BaseModel):
    channel: str | None = None
    ts: str | None = None
    unfurls: Any = None
    source: str | None = None
    unfurl_id: str | None = None


def postable_channel(call: SlackCall, ref: str) -> Row:
    """A conversation the caller may post in; a user id posts in the caller's DM with that user, as on Slack."""
    if ref[:1] in ("U", "W") and call.state.first("users", user_id=ref) and ref != call.user_id:
        return conversation_with(call, {ref})[0]
    channel = call.channel(ref)
    if channel.get("is_archived"):
        raise SlackError("is_archived")
    if not call.is_member(channel):
        raise SlackError("not_in_channel")
    return channel


def checked_text(text: str | None, blocks: Any = None, attachments: Any = None) -> str:
    if not (text or blocks or attachments):
        raise SlackError("no_text")
    if text and len(text) > MAX_TEXT:
        raise SlackError("msg_too_long")
    return text or ""


def rich_content(blocks: Any, attachments: Any) -> dict:
    """Block Kit blocks and legacy attachments as stored on the message (JSON text or arrays)."""
    stored = {}
    for name, value, error in (("blocks", blocks, "invalid_blocks"), ("attachments", attachments, "invalid_attachments")):
        if value in (None, "", "[]", []):
            continue
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                raise SlackError(error) from None
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            raise SlackError(error)
        stored[name] = value
    return stored


def checked_metadata(value: Any) -> dict:
    """Message metadata: `{"event_type": str, "event_payload": {...}}`, as JSON text or an object."""
    if value in (None, ""):
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise SlackError("invalid_metadata_format") from None
    if not isinstance(value, dict) or not isinstance(value.get("event_type"), str) \
            or not isinstance(value.get("event_payload"), dict):
        raise SlackError("invalid_metadata_format")
    return {"metadata": {"event_type": value["event_type"], "event_payload": value["event_payload"]}}


def checked_thread(call: SlackCall, channel: Row, thread_ts: str | None) -> None:
    if thread_ts and not call.state.first("messages", message_id=thread_ts, channel_id=channel["channel_id"]):
        raise SlackError("thread_not_found")


def insert_message(state: EnvState, channel_id: str, user_id: str, text: str, thread_ts: str | None = None,
                   **extra: object) -> Row:
    """A new message row in AgentDiff's columns; `extra` adds Slack fields such as subtype or files."""
    ts = new_ts(state)
    return state.insert("messages", {
        "message_id": ts, "channel_id": channel_id, "user_id": user_id, "message_text": text,
        "parent_id": thread_ts, "ts": ts, "type": "message",
        "created_at": clock.utcnow().isoformat(), **extra})


def post_message(call: SlackCall) -> dict:
    args = call.args(PostMessageArgs)
    channel = postable_channel(call, args.channel)
    text = checked_text(args.text, args.blocks, args.attachments)
    checked_thread(call, channel, args.thread_ts)
    broadcast = {"subtype": "thread_broadcast"} if args.thread_ts and args.reply_broadcast else {}
    message = insert_message(call.state, channel["channel_id"], call.user_id, text, args.thread_ts,
                             **rich_content(args.blocks, args.attachments), **checked_metadata(args.metadata),
                             **broadcast)
    return {"channel": channel["channel_id"], "ts": message["message_id"],
            "message": message_json(call.state, message)}


def me_message(call: SlackCall) -> dict:
    args = call.args(MeMessageArgs)
    channel = postable_channel(call, args.channel)
    message = insert_message(call.state, channel["channel_id"], call.user_id, checked_text(args.text),
                             subtype="me_message")
    return {"channel": channel["channel_id"], "ts": message["message_id"]}


def post_ephemeral(call: SlackCall) -> dict:
    """Shown to one user for the moment, never stored: no conversation's history holds it."""
    args = call.args(EphemeralArgs)
    channel = postable_channel(call, args.channel)
    checked_text(args.text, args.blocks, args.attachments)
    call.other_user(args.user)
    if not call.is_member(channel, args.user):
        raise SlackError("user_not_in_channel")
    checked_thread(call, channel, args.thread_ts)
    return {"message_ts": new_ts(call.state)}


def may_delete_others(call: SlackCall) -> bool:
    """Slack lets a workspace admin or owner delete others' messages with a user token."""
    return not call.user.get("is_bot") and (
        bool(call.user.get("is_admin")) or workspace_roles(call.state).get(call.user_id) in ADMIN_ROLES)


def update(call: SlackCall) -> dict:
    """Only the author edits a message, as on Slack, whatever the token (AgentDiff's replica lets
    any member edit any message; Slack's reference does not)."""
    args = call.args(UpdateArgs)
    channel = call.member_channel(args.channel)
    message = call.message(channel, args.ts)
    if message.get("user_id") != call.user_id:
        raise SlackError("cant_update_message")
    text = checked_text(args.text, args.blocks)
    if channel.get("is_archived"):
        raise SlackError("is_archived")
    message = call.state.update("messages", {**message, "message_text": text, **rich_content(args.blocks, None)})
    return {"channel": channel["channel_id"], "ts": args.ts, "text": message["message_text"],
            "message": message_json(call.state, message)}


def delete(call: SlackCall) -> dict:
    """Slack's rule, whatever the token: the author, or an admin with a user token."""
    args = call.args(DeleteArgs)
    channel = call.member_channel(args.channel)
    message = call.message(channel, args.ts)
    if message.get("user_id") != call.user_id and not may_delete_others(call):
        raise SlackError("cant_delete_message")
    for table in ("message_reactions", "pins", "stars"):
        for row in call.state.rows(table, message_id=message["message_id"]):
            call.state.delete(table, row)
    call.state.delete("messages", message)
    return {"channel": channel["channel_id"], "ts": args.ts}


def permalink(state: EnvState, channel_id: str, message: Row) -> str:
    digits = message["message_id"].replace(".", "")
    link = f"https://{workspace_domain(state)}.slack.com/archives/{channel_id}/p{digits}"
    if message.get("parent_id") and message["parent_id"] != message["message_id"]:
        link += f"?thread_ts={message['parent_id']}&cid={channel_id}"
    return link


def get_permalink(call: SlackCall) -> dict:
    args = call.args(PermalinkArgs)
    channel = call.channel(args.channel)
    if (channel.get("is_private") or channel.get("is_dm")) and not call.is_member(channel):
        raise SlackError("channel_not_found")
    message = call.message(channel, args.message_ts)
    return {"channel": channel["channel_id"], "permalink": permalink(call.state, channel["channel_id"], message)}


def unfurl(call: SlackCall) -> dict:
    """Unfurls attach to a message's links for the moment; the replica checks the target and keeps none."""
    args = call.args(UnfurlArgs)
    if args.source and args.unfurl_id:
        return {}
    if not (args.channel and args.ts):
        raise SlackError("invalid_arguments", response_metadata={
            "messages": ["[ERROR] channel and ts, or source and unfurl_id, are required"]})
    if args.unfurls in (None, "", {}, "{}"):
        raise SlackError("invalid_unfurls_format")
    call.message(call.member_channel(args.channel), args.ts)
    return {}


METHODS = {"chat.postMessage": post_message, "chat.update": update, "chat.delete": delete,
           "chat.meMessage": me_message, "chat.postEphemeral": post_ephemeral,
           "chat.getPermalink": get_permalink, "chat.unfurl": unfurl}
