"""chat.*"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any

from pydantic import BaseModel

from mock_services.slack.call import SlackCall
from mock_services.slack.errors import SlackError
from mock_services.slack.serializers import message_json


class PostMessageArgs(BaseModel):
    channel: str
    text: str | None = None
    blocks: Any = None
    attachments: Any = None
    thread_ts: str | None = None


def new_ts(call: SlackCall) -> str:
    """Slack's ts: seconds.microseconds, unique within the workspace here."""
    micros = int(time.time() * 1_000_000)
    while call.state.first("messages", message_id=f"{micros // 1_000_000}.{micros % 1_000_000:06d}"):
        micros += 1
    return f"{micros // 1_000_000}.{micros % 1_000_000:06d}"


class UpdateArgs(BaseModel):
    channel: str
    ts: str
    text: str | None = None
    blocks: Any = None


class DeleteArgs(BaseModel):
    channel: str
    ts: str


def post_message(call: SlackCall) -> dict:
    args = call.args(PostMessageArgs)
    channel = call.channel(args.channel)
    if channel.get("is_archived"):
        raise SlackError("is_archived")
    if not call.is_member(channel):
        raise SlackError("not_in_channel")
    if not (args.text or args.blocks or args.attachments):
        raise SlackError("no_text")
    if args.thread_ts and not call.state.first("messages", message_id=args.thread_ts,
                                               channel_id=channel["channel_id"]):
        raise SlackError("thread_not_found")
    ts = new_ts(call)
    message = call.state.insert("messages", {
        "message_id": ts,
        "channel_id": channel["channel_id"],
        "user_id": call.user_id,
        "message_text": args.text or "",
        "parent_id": args.thread_ts,
        "ts": ts,
        "type": "message",
        "created_at": datetime.now(timezone.utc).isoformat(),
    })
    return {"channel": channel["channel_id"], "ts": ts, "message": message_json(call.state, message)}


def update(call: SlackCall) -> dict:
    """Members may edit any message of the conversation, as in AgentDiff's replica (whose suites
    edit others' messages); real Slack allows only the author."""
    args = call.args(UpdateArgs)
    channel = call.member_channel(args.channel)
    message = call.message(channel, args.ts)
    if not (args.text or args.blocks):
        raise SlackError("no_text")
    if channel.get("is_archived"):
        raise SlackError("is_archived")
    message = call.state.update("messages", {**message, "message_text": args.text or ""})
    return {"channel": channel["channel_id"], "ts": args.ts, "text": message["message_text"],
            "message": message_json(call.state, message)}


def delete(call: SlackCall) -> dict:
    """Any member of the conversation may delete a message, as in AgentDiff's replica (whose
    suites delete others' messages); real Slack reserves that for admins."""
    args = call.args(DeleteArgs)
    channel = call.member_channel(args.channel)
    message = call.message(channel, args.ts)
    for reaction in call.state.rows("message_reactions", message_id=message["message_id"]):
        call.state.delete("message_reactions", reaction)
    call.state.delete("messages", message)
    return {"channel": channel["channel_id"], "ts": args.ts}


METHODS = {"chat.postMessage": post_message, "chat.update": update, "chat.delete": delete}
