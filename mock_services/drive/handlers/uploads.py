"""Uploads (`/upload/drive/v3/files[/{fileId}]`) as Google takes them: `uploadType=media` (the
bytes alone), `multipart` (multipart/related: the metadata's JSON, then the media) and
`resumable` (a session opened with the metadata, its Location the URL the bytes go to in one
or more `Content-Range` chunks, 308 with `Range` until the last). A session's chunks are kept by
hash, its progress in the environment's state, so any proxy worker can take the next chunk."""

from __future__ import annotations

import json
import re
from urllib.parse import urlencode

from fastapi.responses import Response

from mock_services.drive.handlers.files_write import Media, create_file, update_file
from mock_services.drive import contents
from mock_services.drive.resources import new_id
from mock_services.rest.bodies import related_parts
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call

SESSION_KEY = "drive:upload_session:"
CONTENT_RANGE = re.compile(r"^bytes (?:(\d+)-(\d+)|\*)/(\d+|\*)$")
HOSTS = ("www.googleapis.com", "drive.googleapis.com")


def _related(call: Call, raw: bytes) -> tuple[dict, Media]:
    """multipart/related: the metadata's JSON, then the media."""
    parts = related_parts(call.headers.get("content-type", ""), raw)
    if len(parts) != 2:
        raise RestError(400, "badContent", "A multipart upload has two parts: the metadata, then the media.")
    (_, metadata), (headers, media) = parts
    return _json(metadata), Media(media, headers.get("content-type", "application/octet-stream"))


def _json(raw: bytes) -> dict:
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise RestError(400, "parseError", "Parse Error") from None
    if not isinstance(body, dict):
        raise RestError(400, "parseError", "Parse Error")
    return body


def _session_url(call: Call, upload_id: str) -> str:
    host = call.headers.get("host", "").split(":")[0]
    path = "files" + (f"/{call.params['fileId']}" if call.params.get("fileId") else "")
    query = urlencode([(name, str(value).lower() if isinstance(value, bool) else value)
                       for name, value in call.params.items()
                       if name in call.operation.parameters and call.operation.parameters[name].location == "query"
                       or name in ("fields", "uploadType", "alt")])
    return f"https://{host if host in HOSTS else HOSTS[0]}/upload/drive/v3/{path}?{query}&upload_id={upload_id}"


def _open(call: Call) -> Response:
    upload_id = "ADPyc" + new_id("", 60)
    length = call.headers.get("x-upload-content-length")
    session = {"metadata": _json(call.body), "user": call.user, "received": 0, "chunks": [],
               "media_type": call.headers.get("x-upload-content-type") or "application/octet-stream",
               "length": int(length) if length and length.isdigit() else None}
    call.state.set_meta(SESSION_KEY + upload_id, session)
    return Response(status_code=200, headers={"Location": _session_url(call, upload_id), "X-GUploader-UploadID": upload_id})


def _incomplete(received: int) -> Response:
    return Response(status_code=308, headers={"Range": f"bytes=0-{received - 1}"} if received else {})


def _chunk(call: Call, finish) -> object:
    upload_id = call.params["upload_id"]
    session = call.state.meta(SESSION_KEY + upload_id)
    if session is None:
        raise RestError(404, "notFound", "No upload session with that id (finished, or never opened).")
    data: bytes = call.body
    matched = CONTENT_RANGE.match(call.headers.get("content-range", f"bytes 0-{len(data) - 1}/{len(data)}"
                                                   if data else "bytes */0"))
    if not matched:
        raise RestError(400, "badRequest", "Content-Range is malformed.")
    first, _, total = matched.groups()
    if total != "*":
        session["length"] = int(total)
    if first is not None:
        if int(first) != session["received"]:
            return _incomplete(session["received"])  # the client resends from where the replica stands
        session["chunks"].append(contents.keep(call.state, data))
        session["received"] += len(data)
    if session["length"] is None or session["received"] < session["length"]:
        call.state.set_meta(SESSION_KEY + upload_id, session)
        return _incomplete(session["received"])
    whole = b"".join(contents.read(call.state, sha1) or b"" for sha1 in session["chunks"])
    call.state.set_meta(SESSION_KEY + upload_id, None)
    call.user = session["user"]
    return finish(call, session["metadata"], Media(whole, session["media_type"]))


def _upload(call: Call, finish) -> object:
    if call.params.get("upload_id"):
        return _chunk(call, finish)
    kind = call.arg("uploadType")
    if kind == "resumable":
        return _open(call)
    if kind == "multipart":
        metadata, media = _related(call, call.body)
        return finish(call, metadata, media)
    if kind == "media":
        return finish(call, {}, Media(call.body, call.headers.get("content-type") or "application/octet-stream"))
    raise RestError(400, "badRequest", "uploadType must be media, multipart or resumable.")


HANDLERS = {"files.create": lambda call: _upload(call, create_file),
            "files.update": lambda call: _upload(call, update_file)}
