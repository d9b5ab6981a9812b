"""chat.scheduleMessage and its list and delete; due messages are posted on the next call.

The replica has no clock of its own: before each Slack call it posts the scheduled
messages whose time has come, so an agent that schedules a message for a minute from now
finds it in the history a minute later, as on Slack.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel

from mock_services.slack.call import SlackCall
from mock_services.slack.errors import SlackError
from mock_services.slack.ids import new_id, now
from mock_services.slack.methods.chat import checked_text, checked_thread, insert_message, postable_channel
from mock_services.slack.pagination import paginate
from mock_services.store import EnvState, Row

MAX_AHEAD_S = 120 * 86_400


class ScheduleArgs(BaseModel):
    channel: str
    post_at: float
    text: str | None = None
    blocks: Any = None
    attachments: Any = None
    thread_ts: str | None = None


class ListArgs(BaseModel):
    channel: str | None = None
    latest: float | None = None
    oldest: float | None = None
    limit: int = 100
    cursor: str | None = None


class DeleteArgs(BaseModel):
    channel: str
    scheduled_message_id: str


def scheduled_json(row: Row) -> dict:
    return {"id": row["scheduled_message_id"], "channel_id": row["channel_id"], "post_at": row["post_at"],
            "date_created": row["date_created"], "text": row["message_text"]}


def schedule(call: SlackCall) -> dict:
    args = call.args(ScheduleArgs)
    if not math.isfinite(args.post_at):
        raise SlackError("invalid_time")
    post_at = int(args.post_at)
    if post_at <= now():
        raise SlackError("time_in_past")
    if post_at > now() + MAX_AHEAD_S:
        raise SlackError("time_too_far")
    channel = postable_channel(call, args.channel)
    text = checked_text(args.text, args.blocks, args.attachments)
    checked_thread(call, channel, args.thread_ts)
    row = call.state.insert("scheduled_messages", {
        "scheduled_message_id": new_id("Q"), "channel_id": channel["channel_id"], "user_id": call.user_id,
        "message_text": text, "thread_ts": args.thread_ts, "post_at": post_at, "date_created": now()})
    return {"channel": channel["channel_id"], "scheduled_message_id": row["scheduled_message_id"],
            "post_at": post_at, "message": {"type": "message", "text": text, "user": call.user_id,
                                            "bot_id": None, "team": None}}


def list_scheduled(call: SlackCall) -> dict:
    args = call.args(ListArgs)
    channel_id = call.member_channel(args.channel)["channel_id"] if args.channel else None
    rows = [r for r in call.state.rows("scheduled_messages", user_id=call.user_id)
            if (channel_id is None or r["channel_id"] == channel_id)
            and (args.oldest is None or r["post_at"] >= args.oldest)
            and (args.latest is None or r["post_at"] <= args.latest)]
    page, next_cursor = paginate(sorted(rows, key=lambda r: r["post_at"]), args.cursor, args.limit)
    return {"scheduled_messages": [scheduled_json(r) for r in page],
            "response_metadata": {"next_cursor": next_cursor}}


def delete_scheduled(call: SlackCall) -> dict:
    args = call.args(DeleteArgs)
    channel = call.channel(args.channel)
    row = call.state.first("scheduled_messages", scheduled_message_id=args.scheduled_message_id,
                           channel_id=channel["channel_id"])
    if row is None or row["user_id"] != call.user_id:
        raise SlackError("invalid_scheduled_message_id")
    call.state.delete("scheduled_messages", row)
    return {}


def deliver_due_messages(state: EnvState) -> None:
    """Post every scheduled message whose time has come, in time order."""
    due = [r for r in state.rows("scheduled_messages") if r["post_at"] <= now()]
    for row in sorted(due, key=lambda r: r["post_at"]):
        insert_message(state, row["channel_id"], row["user_id"], row["message_text"], row.get("thread_ts"))
        state.delete("scheduled_messages", row)


METHODS = {"chat.scheduleMessage": schedule, "chat.scheduledMessages.list": list_scheduled,
           "chat.deleteScheduledMessage": delete_scheduled}
