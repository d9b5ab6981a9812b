"""stars.*: the items a user saved (a message, a file or a conversation)."""

from __future__ import annotations

from pydantic import BaseModel

from mock_services.slack.call import SlackCall
from mock_services.slack.errors import SlackError
from mock_services.slack.ids import now
from mock_services.slack.methods.files import visible_file
from mock_services.slack.pagination import paged
from mock_services.slack.serializers import file_json, message_json
from mock_services.store import Row


class ItemArgs(BaseModel):
    channel: str | None = None
    timestamp: str | None = None
    file: str | None = None
    file_comment: str | None = None


class ListArgs(BaseModel):
    count: int = 100
    page: int = 1
    cursor: str | None = None
    limit: int = 0


def starred_item(call: SlackCall, args: ItemArgs) -> Row:
    """The row a star would have: which item, by kind."""
    if args.file:
        file = visible_file(call, args.file)
        return {"item_key": f"file:{file['file_id']}", "item_type": "file", "file_id": file["file_id"]}
    if args.file_comment:
        raise SlackError("file_comment_not_found")
    if not args.channel:
        raise SlackError("no_item_specified")
    channel = call.member_channel(args.channel)
    if args.timestamp:
        message = call.message(channel, args.timestamp)
        return {"item_key": f"message:{channel['channel_id']}:{message['message_id']}", "item_type": "message",
                "channel_id": channel["channel_id"], "message_id": message["message_id"]}
    return {"item_key": f"channel:{channel['channel_id']}", "item_type": "channel",
            "channel_id": channel["channel_id"]}


def add(call: SlackCall) -> dict:
    item = starred_item(call, call.args(ItemArgs))
    if call.state.first("stars", user_id=call.user_id, item_key=item["item_key"]):
        raise SlackError("already_starred")
    call.state.insert("stars", {"user_id": call.user_id, **item, "date_create": now()})
    return {}


def remove(call: SlackCall) -> dict:
    item = starred_item(call, call.args(ItemArgs))
    star = call.state.first("stars", user_id=call.user_id, item_key=item["item_key"])
    if star is None:
        raise SlackError("not_starred")
    call.state.delete("stars", star)
    return {}


def item_json(call: SlackCall, star: Row) -> dict:
    item: dict = {"type": star["item_type"], "date_create": star["date_create"]}
    if star["item_type"] == "file":
        file = call.state.first("files", file_id=star["file_id"])
        return {**item, "file": file_json(call.state, file)} if file else item
    channel = call.state.first("channels", channel_id=star["channel_id"]) or {"channel_id": star["channel_id"]}
    if star["item_type"] == "channel":
        return {**item, "channel": star["channel_id"]}
    message = call.state.first("messages", message_id=star["message_id"])
    return {**item, "channel": channel["channel_id"], **({"message": message_json(call.state, message)}
                                                        if message else {})}


def list_stars(call: SlackCall) -> dict:
    args = call.args(ListArgs)
    stars = sorted(call.state.rows("stars", user_id=call.user_id), key=lambda s: s["date_create"], reverse=True)
    page, paging = paged(stars, args.count, args.page, args.cursor, args.limit)
    return {"items": [item_json(call, s) for s in page], **paging}


METHODS = {"stars.add": add, "stars.remove": remove, "stars.list": list_stars}
