"""bookmarks.*: links bookmarked in a conversation's header."""

from __future__ import annotations

from urllib.parse import urlparse

from pydantic import BaseModel

from mock_services.slack.call import SlackCall
from mock_services.slack.errors import SlackError
from mock_services.slack.ids import new_id, now
from mock_services.store import Row
from mock_services.slack.serializers import workspace_team

MAX_TITLE = 255


class AddArgs(BaseModel):
    channel_id: str
    title: str
    type: str
    link: str | None = None
    emoji: str | None = None


class EditArgs(BaseModel):
    bookmark_id: str
    channel_id: str
    title: str | None = None
    link: str | None = None
    emoji: str | None = None


class RemoveArgs(BaseModel):
    bookmark_id: str
    channel_id: str


class ListArgs(BaseModel):
    channel_id: str


def bookmark_json(row: Row) -> dict:
    return {"id": row["bookmark_id"], "channel_id": row["channel_id"], "title": row["title"],
            "link": row["link"], "emoji": row.get("emoji") or "", "icon_url": None, "type": "link",
            "entity_id": None, "date_created": row["date_created"], "date_updated": row["date_updated"],
            "rank": row["rank"], "last_updated_by_user_id": row["updated_by"],
            "last_updated_by_team_id": row.get("team_id") or "", "shortcut_id": None, "app_id": None}


def checked_link(link: str | None) -> str:
    parsed = urlparse(link or "")
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise SlackError("invalid_link")
    return link or ""


def checked_title(title: str) -> str:
    if not title.strip() or len(title) > MAX_TITLE:
        raise SlackError("invalid_title")
    return title


def bookmark(call: SlackCall, bookmark_id: str, channel: Row) -> Row:
    row = call.state.first("bookmarks", bookmark_id=bookmark_id, channel_id=channel["channel_id"])
    if row is None:
        raise SlackError("not_found")
    return row


def add(call: SlackCall) -> dict:
    args = call.args(AddArgs)
    channel = call.writable_channel(args.channel_id)
    if args.type != "link":
        raise SlackError("invalid_bookmark_type")
    team = workspace_team(call.state)
    rank = chr(ord("a") + min(len(call.state.rows("bookmarks", channel_id=channel["channel_id"])), 25))
    row = call.state.insert("bookmarks", {
        "bookmark_id": new_id("Bk"), "channel_id": channel["channel_id"], "title": checked_title(args.title),
        "link": checked_link(args.link), "emoji": args.emoji, "created_by": call.user_id,
        "updated_by": call.user_id, "team_id": team.get("team_id"), "date_created": now(),
        "date_updated": 0, "rank": rank})
    return {"bookmark": bookmark_json(row)}


def edit(call: SlackCall) -> dict:
    args = call.args(EditArgs)
    channel = call.writable_channel(args.channel_id)
    row = bookmark(call, args.bookmark_id, channel)
    changes = {"title": checked_title(args.title) if args.title is not None else row["title"],
               "link": checked_link(args.link) if args.link is not None else row["link"],
               "emoji": args.emoji if args.emoji is not None else row.get("emoji")}
    row = call.state.update("bookmarks", {**row, **changes, "updated_by": call.user_id, "date_updated": now()})
    return {"bookmark": bookmark_json(row)}


def remove(call: SlackCall) -> dict:
    args = call.args(RemoveArgs)
    channel = call.writable_channel(args.channel_id)
    call.state.delete("bookmarks", bookmark(call, args.bookmark_id, channel))
    return {}


def list_bookmarks(call: SlackCall) -> dict:
    channel = call.member_channel(call.args(ListArgs).channel_id)
    rows = call.state.rows("bookmarks", channel_id=channel["channel_id"])
    return {"bookmarks": [bookmark_json(r) for r in sorted(rows, key=lambda r: r["rank"])]}


METHODS = {"bookmarks.add": add, "bookmarks.edit": edit, "bookmarks.remove": remove,
           "bookmarks.list": list_bookmarks}
