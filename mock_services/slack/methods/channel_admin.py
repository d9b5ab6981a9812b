"""conversations.create, archive, unarchive, rename, setTopic and setPurpose: the channel itself."""

from __future__ import annotations

import re

from pydantic import BaseModel

from mock_services.slack.call import SlackCall
from mock_services.slack.errors import SlackError
from mock_services.slack.ids import new_id, now
from mock_services.slack.methods.membership import add_member
from mock_services.slack.serializers import NOTHING_READ, channel_json, workspace_team
from mock_services.store import Row

NAME = re.compile(r"^[a-z0-9_-]+$")
MAX_NAME = 80
MAX_TOPIC = 250


class CreateArgs(BaseModel):
    name: str
    is_private: bool = False


class ChannelArgs(BaseModel):
    channel: str


class RenameArgs(BaseModel):
    channel: str
    name: str


class TopicArgs(BaseModel):
    channel: str
    topic: str


class PurposeArgs(BaseModel):
    channel: str
    purpose: str


def checked_name(call: SlackCall, name: str) -> str:
    name = name.strip().removeprefix("#")
    if not name:
        raise SlackError("invalid_name_required")
    if len(name) > MAX_NAME:
        raise SlackError("invalid_name_maxlength")
    if name != name.lower() or " " in name or "." in name:
        raise SlackError("invalid_name_punctuation" if "." in name else "invalid_name_specials")
    if not NAME.fullmatch(name):
        raise SlackError("invalid_name_specials")
    if call.state.first("channels", channel_name=name):
        raise SlackError("name_taken")
    return name


def reply(call: SlackCall, channel: Row) -> dict:
    return {"channel": channel_json(call.state, channel, call.user_id)}


def create(call: SlackCall) -> dict:
    args = call.args(CreateArgs)
    team = workspace_team(call.state)
    channel = call.state.insert("channels", {
        "channel_id": new_id("C"), "channel_name": checked_name(call, args.name), "team_id": team.get("team_id"),
        "is_private": args.is_private, "is_dm": False, "is_gc": False, "is_archived": False,
        "topic_text": "", "purpose_text": "", "created": now(), "creator_id": call.user_id})
    add_member(call, channel, call.user_id)
    created = reply(call, channel)
    created["channel"] |= {"last_read": NOTHING_READ, "priority": 0}  # as Slack documents a new conversation
    return created


def set_archived(call: SlackCall, archived: bool) -> dict:
    """Slack checks the channel's state first: unarchiving one that is not archived (#general
    included) is `not_archived`, archiving #general is `cant_archive_general`."""
    channel = call.channel(call.args(ChannelArgs).channel)
    if bool(channel.get("is_archived")) == archived:
        raise SlackError("already_archived" if archived else "not_archived")
    if channel.get("channel_name") == "general":
        raise SlackError("cant_archive_general")
    call.state.update("channels", {**channel, "is_archived": archived})
    return {}


def rename(call: SlackCall) -> dict:
    args = call.args(RenameArgs)
    channel = call.member_channel(args.channel)
    if channel.get("channel_name") == "general":
        raise SlackError("not_authorized")
    return reply(call, call.state.update("channels", {**channel, "channel_name": checked_name(call, args.name)}))


def set_topic(call: SlackCall) -> dict:
    args = call.args(TopicArgs)
    channel = call.writable_channel(args.channel)
    if len(args.topic) > MAX_TOPIC:
        raise SlackError("too_long")
    return reply(call, call.state.update("channels", {**channel, "topic_text": args.topic}))


def set_purpose(call: SlackCall) -> dict:
    args = call.args(PurposeArgs)
    channel = call.writable_channel(args.channel)
    if len(args.purpose) > MAX_TOPIC:
        raise SlackError("too_long")
    updated = call.state.update("channels", {**channel, "purpose_text": args.purpose})
    return {**reply(call, updated), "purpose": args.purpose}


METHODS = {"conversations.create": create, "conversations.archive": lambda call: set_archived(call, True),
           "conversations.unarchive": lambda call: set_archived(call, False),
           "conversations.rename": rename, "conversations.setTopic": set_topic,
           "conversations.setPurpose": set_purpose}
