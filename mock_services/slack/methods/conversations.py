"""conversations.*"""

from __future__ import annotations

from pydantic import BaseModel

from mock_services.slack.call import SlackCall
from mock_services.slack.errors import SlackError
from mock_services.slack.pagination import paginate
from mock_services.slack.serializers import NOTHING_READ, channel_json, messages_json
from mock_services.store import Row

CHANNEL_TYPES = {"public_channel", "private_channel", "mpim", "im"}


class ListArgs(BaseModel):
    types: str = "public_channel"
    exclude_archived: bool = False
    limit: int = 100
    cursor: str | None = None


class ChannelArgs(BaseModel):
    channel: str


class InfoArgs(ChannelArgs):
    include_num_members: bool = False


class MarkArgs(BaseModel):
    channel: str
    ts: str


class MembersArgs(BaseModel):
    channel: str
    limit: int = 100
    cursor: str | None = None


class RepliesArgs(BaseModel):
    channel: str
    ts: str
    limit: int = 1000
    cursor: str | None = None


class HistoryArgs(BaseModel):
    channel: str
    limit: int = 100
    cursor: str | None = None
    oldest: str | None = None
    latest: str | None = None
    inclusive: bool = False


def channel_type(channel: Row) -> str:
    if channel.get("is_dm"):
        return "im"
    if channel.get("is_gc"):
        return "mpim"
    return "private_channel" if channel.get("is_private") else "public_channel"


def list_conversations(call: SlackCall) -> dict:
    args = call.args(ListArgs)
    wanted = {t.strip() for t in args.types.split(",") if t.strip()}
    if not wanted <= CHANNEL_TYPES:
        raise SlackError("invalid_types")
    visible = [
        c for c in call.state.rows("channels")
        if channel_type(c) in wanted
        and not (args.exclude_archived and c.get("is_archived"))
        and (channel_type(c) == "public_channel" or call.is_member(c))
    ]
    page, next_cursor = paginate(visible, args.cursor, args.limit)
    return {"channels": [channel_json(call.state, c, call.user_id) for c in page],
            "response_metadata": {"next_cursor": next_cursor}}


def _ts(value: str | None, error: str) -> float | None:
    if value in (None, ""):
        return None
    try:
        return float(value)
    except ValueError:
        raise SlackError(error) from None


def history(call: SlackCall) -> dict:
    args = call.args(HistoryArgs)
    channel = call.channel(args.channel)
    if not call.is_member(channel):
        raise SlackError("not_in_channel" if channel_type(channel) == "public_channel"
                         else "channel_not_found")
    oldest, latest = _ts(args.oldest, "invalid_ts_oldest"), _ts(args.latest, "invalid_ts_latest")

    def in_window(ts: float) -> bool:
        lower = oldest is None or ts > oldest or (args.inclusive and ts == oldest)
        upper = latest is None or ts < latest or (args.inclusive and ts == latest)
        return lower and upper

    top_level = [m for m in call.state.rows("messages", channel_id=channel["channel_id"])
                 if not m.get("parent_id") or m.get("parent_id") == m["message_id"]
                 or m.get("subtype") == "thread_broadcast"]  # a reply also sent to the channel
    newest_first = sorted((m for m in top_level if in_window(float(m["message_id"]))),
                          key=lambda m: float(m["message_id"]), reverse=True)
    page, next_cursor = paginate(newest_first, args.cursor, args.limit)
    return {"messages": messages_json(call.state, page),
            "has_more": bool(next_cursor),
            "pin_count": 0,
            "response_metadata": {"next_cursor": next_cursor}}


def replies(call: SlackCall) -> dict:
    args = call.args(RepliesArgs)
    channel = call.member_channel(args.channel)
    parent = call.state.first("messages", message_id=args.ts, channel_id=channel["channel_id"])
    if parent is None:
        raise SlackError("thread_not_found")
    root = parent.get("parent_id") or parent["message_id"]
    thread = [m for m in call.state.rows("messages", channel_id=channel["channel_id"])
              if m["message_id"] == root or m.get("parent_id") == root]
    thread.sort(key=lambda m: float(m["message_id"]))
    page, next_cursor = paginate(thread, args.cursor, args.limit)
    rendered = messages_json(call.state, page)
    for row, message in zip(page, rendered):
        if row["message_id"] == root and len(thread) > 1:
            message |= _read_state(call, thread)
        elif row["message_id"] != root:
            message["parent_user_id"] = thread[0].get("user_id")
    return {"messages": rendered, "has_more": bool(next_cursor), "response_metadata": {"next_cursor": next_cursor}}


def _read_state(call: SlackCall, thread: list[Row]) -> dict:
    """What a thread's root shows the caller: subscribed when they wrote in the thread (Slack
    subscribes participants), and read up to their own latest message in it."""
    own = [m["message_id"] for m in thread if m.get("user_id") == call.user_id]
    return {"subscribed": bool(own), "last_read": max(own, key=float) if own else NOTHING_READ}


def info(call: SlackCall) -> dict:
    args = call.args(InfoArgs)
    channel = call.channel(args.channel)
    if (channel.get("is_private") or channel.get("is_dm")) and not call.is_member(channel):
        raise SlackError("channel_not_found")
    body = channel_json(call.state, channel, call.user_id)
    if not args.include_num_members:
        body.pop("num_members")
    membership = call.state.first("channel_members", channel_id=channel["channel_id"], user_id=call.user_id)
    if membership:
        body["last_read"] = membership.get("last_read") or NOTHING_READ
    if channel.get("is_dm"):  # Slack shows a DM's newest message and that it is open
        newest = max(call.state.rows("messages", channel_id=channel["channel_id"]),
                     key=lambda m: float(m["message_id"]), default=None)
        body |= {"is_open": True, "latest": messages_json(call.state, [newest])[0] if newest else None}
    return {"channel": body}


def mark(call: SlackCall) -> dict:
    """Moves the caller's read cursor; kept on the membership row, where the diff shows it."""
    args = call.args(MarkArgs)
    channel = call.member_channel(args.channel)
    _ts(args.ts, "invalid_timestamp")
    membership = call.state.first("channel_members", channel_id=channel["channel_id"], user_id=call.user_id)
    call.state.update("channel_members", {**membership, "last_read": args.ts})
    return {}


def close(call: SlackCall) -> dict:
    """Closing a DM hides it from the sidebar; the replica keeps no sidebar, so only the checks remain."""
    channel = call.member_channel(call.args(ChannelArgs).channel)
    if not (channel.get("is_dm") or channel.get("is_gc")):
        raise SlackError("method_not_supported_for_channel_type")
    return {}


def members(call: SlackCall) -> dict:
    args = call.args(MembersArgs)
    channel = call.channel(args.channel)
    if (channel.get("is_private") or channel.get("is_dm")) and not call.is_member(channel):
        raise SlackError("channel_not_found")
    ids = [m["user_id"] for m in call.state.rows("channel_members", channel_id=channel["channel_id"])]
    page, next_cursor = paginate(ids, args.cursor, args.limit)
    return {"members": page, "response_metadata": {"next_cursor": next_cursor}}


METHODS = {"conversations.list": list_conversations, "conversations.history": history,
           "conversations.replies": replies, "conversations.info": info, "conversations.members": members,
           "conversations.mark": mark, "conversations.close": close}
