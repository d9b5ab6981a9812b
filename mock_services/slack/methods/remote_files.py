"""files.remote.*: files that live in another service and that Slack only points to.

A remote file is added for the whole workspace (not shared anywhere yet), found by its Slack id
or by the `external_id` its app gave it (the first added, where an app reused one), shared into conversations with a message, updated and
removed. It is a row of `files` like a hosted file, with `external_id` and `external_url`, so
the diff and files.info see it as Slack's file object does (`mode` "external").
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from mock_services.slack.call import SlackCall, id_list
from mock_services.slack.errors import SlackError
from mock_services.slack.ids import new_id, now
from mock_services.slack.methods.chat import insert_message, postable_channel
from mock_services.slack.methods.files import visible_file
from mock_services.slack.methods.profile import image_bytes
from mock_services.slack.pagination import paginate
from mock_services.slack.serializers import file_json
from mock_services.store import Row

REMOTE_MIMETYPE = "application/vnd.slack-remote"


class RemoteArgs(BaseModel):
    """A remote file by its Slack id or its app's external id."""
    file: str | None = None
    external_id: str | None = None


class UpdateArgs(RemoteArgs):
    external_url: str | None = None
    title: str | None = None
    filetype: str | None = None
    indexable_file_contents: bytes | str | None = None
    preview_image: bytes | str | None = None


class AddArgs(UpdateArgs):
    external_id: str = Field(min_length=1)
    external_url: str = Field(min_length=1)
    title: str = Field(min_length=1)


class ShareArgs(RemoteArgs):
    channels: str | list[str]


class ListArgs(BaseModel):
    channel: str | None = None
    ts_from: float | None = None
    ts_to: float | None = None
    limit: int = 100
    cursor: str | None = None


def _text(value: bytes | str | None) -> str | None:
    """The searchable text of `indexable_file_contents` (a part or a string)."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def remote_file(call: SlackCall, file_id: str | None, external_id: str | None) -> Row:
    """The remote file named by its Slack id or its app's external id."""
    if file_id:
        found = call.state.first("files", file_id=file_id)
    elif external_id:
        found = call.state.first("files", external_id=external_id)
    else:
        raise SlackError("invalid_arguments", response_metadata={
            "messages": ["[ERROR] one of file or external_id is required"]})
    if found is None or not found.get("external_id"):
        raise SlackError("file_not_found")
    return found


def add(call: SlackCall) -> dict:
    args = call.args(AddArgs)
    if args.preview_image is not None:
        image_bytes(args.preview_image)
    file = call.state.insert("files", {
        "file_id": new_id("F"), "user_id": call.user_id, "name": args.title, "title": args.title,
        "mimetype": REMOTE_MIMETYPE, "filetype": args.filetype or "remote", "size": 0, "created": now(),
        "state": "complete", "channel_ids": [], "external_id": args.external_id,
        "external_url": args.external_url, "indexable_text": _text(args.indexable_file_contents),
        "has_preview": args.preview_image is not None})
    return {"file": file_json(call.state, file)}


def update(call: SlackCall) -> dict:
    args = call.args(UpdateArgs)
    file = remote_file(call, args.file, args.external_id)
    if args.preview_image is not None:
        image_bytes(args.preview_image)
    changes = {"title": args.title, "name": args.title, "external_url": args.external_url,
               "filetype": args.filetype, "indexable_text": _text(args.indexable_file_contents),
               "has_preview": True if args.preview_image is not None else None}
    file = call.state.update("files", {**file, **{k: v for k, v in changes.items() if v is not None}})
    return {"file": file_json(call.state, file)}


def info(call: SlackCall) -> dict:
    args = call.args(RemoteArgs)
    return {"file": file_json(call.state, remote_file(call, args.file, args.external_id))}


def remove(call: SlackCall) -> dict:
    args = call.args(RemoteArgs)
    file = remote_file(call, args.file, args.external_id)
    if file["user_id"] != call.user_id:
        raise SlackError("not_allowed")
    call.state.delete("files", file)
    return {}


def share(call: SlackCall) -> dict:
    """Into each conversation, with a message that carries the file, as a hosted file is shared."""
    args = call.args(ShareArgs)
    file = remote_file(call, args.file, args.external_id)
    channels = [postable_channel(call, ref) for ref in id_list(args.channels)]
    if not channels:
        raise SlackError("invalid_channel")
    added = [c["channel_id"] for c in channels if c["channel_id"] not in file.get("channel_ids", [])]
    file = call.state.update("files", {**file, "channel_ids": [*file.get("channel_ids", []), *added]})
    for channel in channels:
        insert_message(call.state, channel["channel_id"], call.user_id, "", None, subtype="file_share",
                       file_ids=[file["file_id"]])
    return {"file": file_json(call.state, file)}


def list_remote(call: SlackCall) -> dict:
    args = call.args(ListArgs)
    channel_id = call.channel(args.channel)["channel_id"] if args.channel else None
    found = []
    for file in call.state.rows("files"):
        if not file.get("external_id") or (channel_id and channel_id not in file.get("channel_ids", [])):
            continue
        if (args.ts_from or 0) <= file["created"] <= (args.ts_to or float("inf")) and _visible(call, file):
            found.append(file)
    found.sort(key=lambda f: f["created"], reverse=True)
    page, next_cursor = paginate(found, args.cursor, args.limit or 100)
    return {"files": [file_json(call.state, f) for f in page], "response_metadata": {"next_cursor": next_cursor}}


def _visible(call: SlackCall, file: Row) -> bool:
    """Remote files are the workspace's: listed once shared where the caller can see, or unshared."""
    if not file.get("channel_ids"):
        return True
    try:
        visible_file(call, file["file_id"])
    except SlackError:
        return False
    return True


METHODS = {"files.remote.add": add, "files.remote.update": update, "files.remote.info": info,
           "files.remote.remove": remove, "files.remote.share": share, "files.remote.list": list_remote}
