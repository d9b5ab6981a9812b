"""conversations.join, invite, kick, leave and open: who is in a conversation."""

from __future__ import annotations

from pydantic import BaseModel

from mock_services.slack.call import SlackCall
from mock_services.slack.errors import SlackError
from mock_services.slack.ids import new_id
from mock_services.slack.serializers import channel_json, workspace_team
from mock_services.store import Row

class ChannelArgs(BaseModel):
    channel: str


class UsersArgs(BaseModel):
    channel: str
    users: str


class KickArgs(BaseModel):
    channel: str
    user: str


class OpenArgs(BaseModel):
    users: str | None = None
    channel: str | None = None
    return_im: bool = False
    prevent_creation: bool = False


def add_member(call: SlackCall, channel: Row, user_id: str) -> None:
    call.state.insert("channel_members", {"channel_id": channel["channel_id"], "user_id": user_id})


def join(call: SlackCall) -> dict:
    channel = call.channel(call.args(ChannelArgs).channel)
    if channel.get("is_private") or channel.get("is_dm") or channel.get("is_gc"):
        raise SlackError("method_not_supported_for_channel_type")
    if channel.get("is_archived"):
        raise SlackError("is_archived")
    body = {}
    if call.is_member(channel):
        body = {"warning": "already_in_channel", "response_metadata": {"warnings": ["already_in_channel"]}}
    else:
        add_member(call, channel, call.user_id)
    return {"channel": channel_json(call.state, channel, call.user_id), **body}


def invite(call: SlackCall) -> dict:
    args = call.args(UsersArgs)
    channel = call.writable_channel(args.channel)
    user_ids = [u.strip() for u in args.users.split(",") if u.strip()]
    if not user_ids:
        raise SlackError("no_user")
    for user_id in user_ids:
        if user_id == call.user_id:
            raise SlackError("cant_invite_self")
        call.other_user(user_id)
        if call.is_member(channel, user_id):
            raise SlackError("already_in_channel")
    for user_id in user_ids:
        add_member(call, channel, user_id)
    return {"channel": channel_json(call.state, channel, call.user_id)}


def kick(call: SlackCall) -> dict:
    args = call.args(KickArgs)
    call.channel(args.channel)
    if args.user == call.user_id:  # before any check of the channel beyond its existence, as Slack lists it
        raise SlackError("cant_kick_self")
    channel = call.writable_channel(args.channel)
    if channel.get("channel_name") == "general":
        raise SlackError("cant_kick_from_general")
    call.other_user(args.user)
    membership = call.state.first("channel_members", channel_id=channel["channel_id"], user_id=args.user)
    if membership is None:
        raise SlackError("not_in_channel")
    call.state.delete("channel_members", membership)
    return {}


def leave(call: SlackCall) -> dict:
    channel = call.channel(call.args(ChannelArgs).channel)
    if channel.get("is_dm"):
        raise SlackError("method_not_supported_for_channel_type")
    if channel.get("channel_name") == "general":
        raise SlackError("cant_leave_general")
    if channel.get("is_archived"):
        raise SlackError("is_archived")
    membership = call.state.first("channel_members", channel_id=channel["channel_id"], user_id=call.user_id)
    if membership is None:
        raise SlackError("not_in_channel", not_in_channel=True)
    call.state.delete("channel_members", membership)
    return {}


def conversation_with(call: SlackCall, others: set[str], create: bool = True) -> tuple[Row | None, bool]:
    """The DM (one other user) or group DM (several) of the caller with `others`, and whether it
    existed already; created unless `create` is false (then None if there is none)."""
    for user_id in others:
        call.other_user(user_id)
    wanted = set(others) | {call.user_id}
    is_dm = len(others) <= 1  # no one else: the caller's own DM with themself
    for channel in call.state.rows("channels", is_dm=is_dm, is_gc=not is_dm):
        members = {m["user_id"] for m in call.state.rows("channel_members", channel_id=channel["channel_id"])}
        if members == wanted:
            return channel, True
    if not create:
        return None, False
    team = workspace_team(call.state)
    channel = call.state.insert("channels", {
        "channel_id": new_id("D" if is_dm else "G"), "channel_name": "-".join(["mpdm", *sorted(wanted)]) if not is_dm
        else f"dm-{'-'.join(sorted(wanted))}", "team_id": team.get("team_id"), "is_private": True,
        "is_dm": is_dm, "is_gc": not is_dm, "is_archived": False, "topic_text": "", "purpose_text": ""})
    for user_id in sorted(wanted):
        add_member(call, channel, user_id)
    return channel, False


def open_conversation(call: SlackCall) -> dict:
    """A DM with one user or a group DM with several; an existing one is reused."""
    args = call.args(OpenArgs)
    if args.channel:
        channel = call.member_channel(args.channel)
        return {"channel": _opened(call, channel, args.return_im), "no_op": True, "already_open": True}
    listed = {u.strip() for u in (args.users or "").split(",") if u.strip()}
    if not listed:
        raise SlackError("users_list_not_supplied")
    channel, existed = conversation_with(call, listed - {call.user_id}, create=not args.prevent_creation)
    if channel is None:
        raise SlackError("channel_not_found")
    return {"channel": _opened(call, channel, args.return_im),
            **({"no_op": True, "already_open": True} if existed else {})}


def _opened(call: SlackCall, channel: Row, full: bool) -> dict:
    """`return_im=true` answers the whole conversation object, as Slack does; else its id."""
    return channel_json(call.state, channel, call.user_id) if full else {"id": channel["channel_id"]}


METHODS = {"conversations.join": join, "conversations.invite": invite, "conversations.kick": kick,
           "conversations.leave": leave, "conversations.open": open_conversation}
