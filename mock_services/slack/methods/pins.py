"""pins.*: messages pinned to a conversation."""

from __future__ import annotations

from pydantic import BaseModel

from mock_services.slack.call import SlackCall
from mock_services.slack.errors import SlackError
from mock_services.slack.ids import now
from mock_services.slack.serializers import message_json
from mock_services.store import Row

MAX_PINS = 100


class PinArgs(BaseModel):
    channel: str
    timestamp: str | None = None


class ListArgs(BaseModel):
    channel: str


def pinned_message(call: SlackCall, args: PinArgs) -> tuple[Row, Row]:
    channel = call.member_channel(args.channel)
    if not args.timestamp:
        raise SlackError("no_item_specified")
    return channel, call.message(channel, args.timestamp)


def add(call: SlackCall) -> dict:
    channel, message = pinned_message(call, call.args(PinArgs))
    if channel.get("is_archived"):
        raise SlackError("is_archived")
    if call.state.first("pins", channel_id=channel["channel_id"], message_id=message["message_id"]):
        raise SlackError("already_pinned")
    if len(call.state.rows("pins", channel_id=channel["channel_id"])) >= MAX_PINS:
        raise SlackError("too_many_pins")
    call.state.insert("pins", {"channel_id": channel["channel_id"], "message_id": message["message_id"],
                               "pinned_by": call.user_id, "created": now()})
    return {}


def remove(call: SlackCall) -> dict:
    channel, message = pinned_message(call, call.args(PinArgs))
    pin = call.state.first("pins", channel_id=channel["channel_id"], message_id=message["message_id"])
    if pin is None:
        raise SlackError("no_pin")
    call.state.delete("pins", pin)
    return {}


def list_pins(call: SlackCall) -> dict:
    channel = call.member_channel(call.args(ListArgs).channel)
    items = []
    for pin in call.state.rows("pins", channel_id=channel["channel_id"]):
        message = call.state.first("messages", message_id=pin["message_id"], channel_id=channel["channel_id"])
        if message:
            items.append({"type": "message", "created": pin["created"], "created_by": pin["pinned_by"],
                          "channel": channel["channel_id"], "message": message_json(call.state, message)})
    return {"items": sorted(items, key=lambda i: i["created"], reverse=True)}


METHODS = {"pins.add": add, "pins.remove": remove, "pins.list": list_pins}
