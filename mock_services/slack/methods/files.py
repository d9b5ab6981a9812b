"""files.*: the upload flow of files_upload_v2, and files listed, shown, shared and deleted.

The flow is Slack's: files.getUploadURLExternal hands out a files.slack.com upload URL
(which the proxy routes to this replica), the bytes are POSTed there, and
files.completeUploadExternal finishes the file and shares it into a conversation with a
message. Until it is completed a file is pending: listed nowhere, shown to nobody.
"""

from __future__ import annotations

import base64
import json
import mimetypes
from typing import Any

from pydantic import BaseModel, Field

from mock_services.slack.call import SlackCall, id_list
from mock_services.slack.errors import SlackError
from mock_services.slack.ids import new_id, now
from mock_services.slack.methods.chat import insert_message, postable_channel
from mock_services.slack.pagination import paged
from mock_services.slack.serializers import file_json
from mock_services.store import EnvState, Row

MAX_UPLOAD_BYTES = 50 * 1024 * 1024


class UploadUrlArgs(BaseModel):
    filename: str = Field(min_length=1, max_length=255)
    length: int = Field(ge=0)
    alt_txt: str | None = None
    snippet_type: str | None = None


class CompletedFile(BaseModel):
    id: str
    title: str | None = None


class CompleteArgs(BaseModel):
    files: Any
    channel_id: str | None = None
    channels: str | list[str] | None = None
    initial_comment: str | None = None
    thread_ts: str | None = None


class FileArgs(BaseModel):
    file: str


class ListArgs(BaseModel):
    channel: str | None = None
    user: str | None = None
    types: str = "all"
    ts_from: float | None = None
    ts_to: float | None = None
    count: int = 100
    page: int = 1
    cursor: str | None = None
    limit: int = 0


class CommentArgs(BaseModel):
    file: str
    id: str


def filetype(name: str) -> tuple[str, str]:
    mimetype = mimetypes.guess_type(name)[0] or "application/octet-stream"
    extension = name.rsplit(".", 1)[-1].lower() if "." in name else "binary"
    return mimetype, extension


def get_upload_url(call: SlackCall) -> dict:
    args = call.args(UploadUrlArgs)
    if args.length > MAX_UPLOAD_BYTES:
        raise SlackError("file_too_large")
    mimetype, extension = filetype(args.filename)
    file = call.state.insert("files", {
        "file_id": new_id("F"), "user_id": call.user_id, "name": args.filename, "title": args.filename,
        "mimetype": mimetype, "filetype": args.snippet_type or extension, "size": args.length,
        "alt_txt": args.alt_txt, "created": now(), "state": "pending", "channel_ids": []})
    return {"upload_url": f"https://files.slack.com/upload/v1/{file['file_id']}", "file_id": file["file_id"]}


def receive_upload(state: EnvState, file_id: str, content: bytes) -> bool:
    """The bytes POSTed to an upload URL; False if no file of this environment awaits them."""
    file = state.first("files", file_id=file_id)
    if file is None or file.get("state") != "pending":
        return False
    state.update("files", {**file, "size": len(content), "state": "uploaded"})
    encoded = base64.b64encode(content).decode()
    if state.first("file_contents", file_id=file_id):
        state.update("file_contents", {"file_id": file_id, "content_b64": encoded})
    else:
        state.insert("file_contents", {"file_id": file_id, "content_b64": encoded})
    return True


def file_content(state: EnvState, file_id: str) -> tuple[bytes, str] | None:
    file = state.first("files", file_id=file_id)
    stored = state.first("file_contents", file_id=file_id)
    if file is None or stored is None or file.get("state") != "complete":
        return None
    return base64.b64decode(stored["content_b64"]), file.get("mimetype") or "application/octet-stream"


def completed_files(value: Any) -> list[CompletedFile]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise SlackError("invalid_arguments", response_metadata={
                "messages": ["[ERROR] files must be a JSON array of {id, title}"]}) from None
    if not isinstance(value, list) or not value or not all(isinstance(f, dict) for f in value):
        raise SlackError("invalid_arguments", response_metadata={
            "messages": ["[ERROR] files must be a non-empty JSON array of {id, title}"]})
    try:
        return [CompletedFile.model_validate(f) for f in value]
    except ValueError:
        raise SlackError("invalid_arguments", response_metadata={
            "messages": ["[ERROR] each file needs an id"]}) from None


def complete_upload(call: SlackCall) -> dict:
    args = call.args(CompleteArgs)
    wanted = completed_files(args.files)
    rows = []
    for item in wanted:
        row = call.state.first("files", file_id=item.id, user_id=call.user_id)
        if row is None or row.get("state") == "complete":
            raise SlackError("file_not_found")
        if row.get("state") != "uploaded":
            raise SlackError("file_upload_not_complete" if row.get("state") == "pending" else "file_not_found")
        rows.append({**row, "title": item.title or row["name"]})
    targets = [args.channel_id] if args.channel_id else id_list(args.channels)
    channels = [postable_channel(call, ref) for ref in targets]
    channel_ids = [c["channel_id"] for c in channels]
    rows = [call.state.update("files", {**row, "state": "complete", "channel_ids": channel_ids}) for row in rows]
    for channel in channels:
        insert_message(call.state, channel["channel_id"], call.user_id, args.initial_comment or "",
                       args.thread_ts, subtype="file_share", file_ids=[r["file_id"] for r in rows])
    return {"files": [file_json(call.state, r) for r in rows]}


def visible_file(call: SlackCall, file_id: str) -> Row:
    """A completed file the caller owns or can see in one of its conversations."""
    file = call.state.first("files", file_id=file_id)
    if file is None or file.get("state") != "complete":
        raise SlackError("file_not_found")
    if file["user_id"] == call.user_id:
        return file
    for channel_id in file.get("channel_ids", []):
        channel = call.state.first("channels", channel_id=channel_id)
        if channel and (call.is_member(channel) or not (channel.get("is_private") or channel.get("is_dm"))):
            return file
    raise SlackError("file_not_found")


def info(call: SlackCall) -> dict:
    file = visible_file(call, call.args(FileArgs).file)
    body = {"file": file_json(call.state, file), "comments": [], "response_metadata": {"next_cursor": ""}}
    content = file_content(call.state, file["file_id"])
    if content and file.get("mimetype", "").startswith("text/"):
        body["content"] = content[0].decode("utf-8", "replace")
    return body


def delete(call: SlackCall) -> dict:
    file = visible_file(call, call.args(FileArgs).file)
    if file["user_id"] != call.user_id and not call.user.get("is_admin"):
        raise SlackError("cant_delete_file")
    for table in ("file_contents", "stars"):
        for row in call.state.rows(table, file_id=file["file_id"]):
            call.state.delete(table, row)
    call.state.delete("files", file)
    return {}


def set_public(call: SlackCall, public: bool) -> dict:
    file = visible_file(call, call.args(FileArgs).file)
    if file["user_id"] != call.user_id:
        raise SlackError("not_allowed")
    if public and file.get("public_url_shared"):
        raise SlackError("already_public")
    file = call.state.update("files", {**file, "public_url_shared": public})
    return {"file": file_json(call.state, file)}


def matches_type(file: Row, types: str) -> bool:
    wanted = {t.strip() for t in types.split(",") if t.strip()} or {"all"}
    kind = "images" if (file.get("mimetype") or "").startswith("image/") else \
        "pdfs" if file.get("filetype") == "pdf" else "snippets" if (file.get("mimetype") or "").startswith("text/") \
        else "other"
    return "all" in wanted or kind in wanted


def list_files(call: SlackCall) -> dict:
    args = call.args(ListArgs)
    channel_id = call.channel(args.channel)["channel_id"] if args.channel else None
    user_id = call.other_user(args.user)["user_id"] if args.user else None
    found = []
    for file in call.state.rows("files", state="complete"):
        try:
            visible_file(call, file["file_id"])
        except SlackError:
            continue
        if ((channel_id is None or channel_id in file.get("channel_ids", []))
                and (user_id is None or file["user_id"] == user_id) and matches_type(file, args.types)
                and (args.ts_from is None or file["created"] >= args.ts_from)
                and (args.ts_to is None or file["created"] <= args.ts_to)):
            found.append(file)
    found.sort(key=lambda f: f["created"], reverse=True)
    page, paging = paged(found, args.count, args.page, args.cursor, args.limit)
    return {"files": [file_json(call.state, f) for f in page], **paging}


def delete_comment(call: SlackCall) -> dict:
    """File comments were retired by Slack; a visible file simply has none to delete."""
    visible_file(call, call.args(CommentArgs).file)
    raise SlackError("comment_not_found")


METHODS = {"files.getUploadURLExternal": get_upload_url, "files.completeUploadExternal": complete_upload,
           "files.info": info, "files.delete": delete, "files.list": list_files,
           "files.sharedPublicURL": lambda call: set_public(call, True),
           "files.revokePublicURL": lambda call: set_public(call, False),
           "files.comments.delete": delete_comment}
