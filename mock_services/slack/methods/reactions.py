"""reactions.*"""

from __future__ import annotations

import re

from pydantic import BaseModel

from mock_services.slack.call import SlackCall
from mock_services.slack.errors import SlackError
from mock_services.slack.serializers import message_json

EMOJI_NAME = re.compile(r"^[a-z0-9_+\-']{1,100}$")


class AddArgs(BaseModel):
    channel: str
    timestamp: str
    name: str


class GetArgs(BaseModel):
    channel: str
    timestamp: str
    full: bool = False


def add(call: SlackCall) -> dict:
    args = call.args(AddArgs)
    name = args.name.strip(":")
    if not EMOJI_NAME.fullmatch(name):
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


METHODS = {"reactions.add": add, "reactions.remove": remove, "reactions.get": get}
