"""reactions.*"""

from __future__ import annotations

import re
from functools import cache

import emoji
from pydantic import BaseModel

from mock_services.slack.call import SlackCall
from mock_services.slack.errors import SlackError
from mock_services.slack.pagination import paged
from mock_services.slack.serializers import message_json

EMOJI_NAME = re.compile(r"^[a-z0-9_+\-']{1,100}$")
SKIN_TONE = re.compile(r"::skin-tone-[2-6]$")


@cache
def standard_names() -> frozenset[str]:
    """Unicode's emoji by their short names and aliases (the `emoji` package's table, which
    holds Slack's and GitHub's shortcodes: `thumbsup`, `+1`, `tada`, `white_check_mark`)."""
    found = set()
    for data in emoji.EMOJI_DATA.values():
        found.add(data["en"].strip(":").lower())
        found.update(a.strip(":").lower() for a in data.get("alias", []))
    return frozenset(found)


def known_emoji(call: SlackCall, name: str) -> bool:
    """A standard emoji (with or without a skin tone) or one the workspace added."""
    bare = SKIN_TONE.sub("", name)
    return bare in standard_names() or call.state.first("emoji", name=bare) is not None


class AddArgs(BaseModel):
    channel: str
    timestamp: str
    name: str


class GetArgs(BaseModel):
    channel: str
    timestamp: str
    full: bool = False


class ListArgs(BaseModel):
    user: str | None = None
    full: bool = False
    count: int = 100
    page: int = 1
    cursor: str | None = None
    limit: int = 0


def add(call: SlackCall) -> dict:
    args = call.args(AddArgs)
    name = args.name.strip(":")
    if not EMOJI_NAME.fullmatch(SKIN_TONE.sub("", name)) or not known_emoji(call, name):
        raise SlackError("invalid_name")
    channel = call.channel(args.channel)
    if channel.get("is_archived"):
        raise SlackError("is_archived")
    message = call.state.first("messages", message_id=args.timestamp, channel_id=channel["channel_id"])
    if message is None:
        raise SlackError("message_not_found")
    if call.state.first("message_reactions", message_id=message["message_id"],
                        user_id=call.user_id, reaction_type=name):
        raise SlackError("already_reacted")
    call.state.insert("message_reactions", {"message_id": message["message_id"],
                                            "user_id": call.user_id, "reaction_type": name})
    return {}


def remove(call: SlackCall) -> dict:
    args = call.args(AddArgs)
    channel = call.channel(args.channel)
    message = call.message(channel, args.timestamp)
    reaction = call.state.first("message_reactions", message_id=message["message_id"], user_id=call.user_id,
                                reaction_type=args.name.strip(":"))
    if reaction is None:
        raise SlackError("no_reaction")
    call.state.delete("message_reactions", reaction)
    return {}


def get(call: SlackCall) -> dict:
    args = call.args(GetArgs)
    channel = call.member_channel(args.channel)
    message = call.message(channel, args.timestamp)
    return {"type": "message", "channel": channel["channel_id"], "message": message_json(call.state, message)}


def list_reactions(call: SlackCall) -> dict:
    """The messages a user reacted to, newest first, in the conversations the caller can see."""
    args = call.args(ListArgs)
    user_id = call.other_user(args.user)["user_id"] if args.user else call.user_id
    seen: dict[str, None] = {}
    for reaction in call.state.rows("message_reactions", user_id=user_id):
        seen.setdefault(reaction["message_id"])
    items = []
    for message_id in seen:
        message = call.state.first("messages", message_id=message_id)
        channel = message and call.state.first("channels", channel_id=message["channel_id"])
        if channel and (call.is_member(channel) or not (channel.get("is_private") or channel.get("is_dm"))):
            items.append({"type": "message", "channel": channel["channel_id"],
                          "message": message_json(call.state, message)})
    items.sort(key=lambda i: float(i["message"]["ts"]), reverse=True)
    page, paging = paged(items, args.count, args.page, args.cursor, args.limit)
    return {"items": page, **paging}


METHODS = {"reactions.add": add, "reactions.remove": remove, "reactions.get": get,
           "reactions.list": list_reactions}
