"""Contents in and out: uploads (multipart, `content-md5` checked), new versions, the
preflight check, downloads (a 302 to a download URL that the proxy also routes here, with
`Range`), and chunked upload sessions (parts, digests, commit)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import secrets
from datetime import timedelta
from urllib.parse import quote

from fastapi.responses import Response

from mock_services import blobs, clock
from mock_services.box import access, contents, errors, tree
from mock_services.box.access import DOWNLOAD, EDIT, UPLOAD
from mock_services.box.handlers import items
from mock_services.box.handlers.copying import add_version, new_file
from mock_services.box.handlers.paging import offset_page
from mock_services.rest.bodies import Upload
from mock_services.rest.errors import RestError
from mock_services.box.resources import existing
from mock_services.rest.router import Call
from mock_services.store import EnvState, Row

UPLOAD_BASE = "https://upload.box.com/api/2.0/files"
DOWNLOAD_BASE = "https://dl.boxcloud.com/d/1"
DOWNLOAD_KEY = "box:download:"
SESSION_KEY = "box:upload_session:"
PART_SIZE = 8 * 1024 * 1024
SMALLEST_CHUNKED = 20_000_000  # Box takes upload sessions for files of 20 MB and more
CONTENT_RANGE = re.compile(r"^bytes (\d+)-(\d+)/(\d+)$")


def _sha1(data: bytes) -> str:
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()


def _attributes(call: Call) -> dict:
    body = call.body if isinstance(call.body, dict) else {}
    order = body.get("__order__", [])
    if "file" not in body or not isinstance(body["file"], Upload):
        raise errors.bad_request("The file part is missing", name="file", reason="missing_parameter")
    if "attributes" in order and order.index("attributes") > order.index("file"):
        raise RestError(400, "metadata_after_file_contents", "The attributes part must come before the file part")
    try:
        attributes = json.loads(body.get("attributes") or "{}")
    except ValueError:
        raise errors.bad_request("attributes is not valid JSON", name="attributes", reason="invalid_parameter") from None
    if not isinstance(attributes, dict):
        raise errors.bad_request("attributes must be an object", name="attributes", reason="invalid_parameter")
    return attributes


def _checked(call: Call) -> bytes:
    data = call.body["file"].data
    expected = call.params.get("content-md5")
    if expected and expected.lower() != _sha1(data):
        raise RestError(400, "sha1_mismatch", "The content's SHA-1 does not match the content-md5 header")
    return data


def upload(call: Call) -> dict:
    attributes = _attributes(call)
    parent = access.item(call, "folder", tree.parent_id(attributes), UPLOAD)
    name = tree.check_name(attributes.get("name") or call.body["file"].filename)
    tree.ensure_free(call, parent["id"], name, "file")
    data = _checked(call)
    row = new_file(call, parent["id"], name, contents.keep(call.state, data), len(data),
                   {"content_created_at": attributes.get("content_created_at"),
                    "content_modified_at": attributes.get("content_modified_at")})
    call.status = 201
    return {"total_count": 1, "entries": [items.answer(call, row)]}


def upload_version(call: Call) -> dict:
    attributes = _attributes(call)
    row = access.item(call, "file", call.params["file_id"], EDIT)
    tree.check_etag(call, row)
    if attributes.get("name") and attributes["name"] != row["name"]:
        row["name"] = tree.check_name(attributes["name"])
        tree.ensure_free(call, row["parent_id"], row["name"], "file", but=row["id"])
    data = _checked(call)
    add_version(call, row, contents.keep(call.state, data), len(data))
    call.status = 201
    return {"total_count": 1, "entries": [items.answer(call, row)]}


def preflight(call: Call) -> dict:
    body = call.body or {}
    parent = access.item(call, "folder", tree.parent_id(body), UPLOAD)
    if body.get("name") is not None:
        tree.ensure_free(call, parent["id"], tree.check_name(body["name"]), "file")
    return {"upload_url": f"{UPLOAD_BASE}/content", "upload_token": secrets.token_urlsafe(24)}


def download(call: Call) -> Response:
    """302 to a one-time-named download URL on dl.boxcloud.com (as Box answers)."""
    row = access.item(call, "file", call.params["file_id"], DOWNLOAD)
    sha1 = row.get("sha_1")
    if call.arg("version"):
        version = existing(call, "box_file_versions", str(call.arg("version")), "file_version", file_id=row["id"])
        sha1 = version.get("sha_1")
    token = secrets.token_urlsafe(24)
    call.state.set_meta(DOWNLOAD_KEY + token, {"sha1": sha1, "name": row["name"]})
    tree.record(call, "ITEM_DOWNLOAD", row)
    return Response(status_code=302, headers={"Location": f"{DOWNLOAD_BASE}/{token}/download"})


def serve_download(state: EnvState, token: str, range_header: str | None) -> Response:
    """The bytes behind a download URL, whole or the `Range` asked for."""
    ticket = state.meta(DOWNLOAD_KEY + token) if re.fullmatch(r"[A-Za-z0-9_-]{1,64}", token) else None
    if ticket is None:
        raise errors.not_found("download")
    data = contents.read(state, ticket["sha1"])
    if data is None:
        raise RestError(404, "not_found", "This file's bytes are not in the copy of AgentDiff's Box seed that "
                                          "this replica was built from (AgentDiff's own seed has them; see the "
                                          "box template's NOTICE)")
    return blobs.ranged(data, range_header, {"Content-Disposition": "attachment; filename*=UTF-8''"
                                              + quote(ticket["name"], safe="")}, "application/octet-stream")


def _session(call: Call) -> dict:
    found = call.state.meta(SESSION_KEY + call.params["upload_session_id"])
    if found is None:
        raise errors.not_found("upload_session")
    return found


def _session_answer(session: dict) -> dict:
    base = f"{UPLOAD_BASE}/upload_sessions/{session['id']}"
    return {"id": session["id"], "type": "upload_session", "session_expires_at": session["expires_at"],
            "part_size": session["part_size"], "total_parts": session["total_parts"],
            "num_parts_processed": len(session["parts"]),
            "session_endpoints": {"upload_part": base, "commit": f"{base}/commit", "abort": base,
                                  "list_parts": f"{base}/parts", "status": base, "log_event": f"{base}/log"}}


def _open_session(call: Call, folder_id: str, file_id: str | None) -> dict:
    body = call.body or {}
    size = body.get("file_size")
    if not isinstance(size, int) or size < 0:
        raise errors.bad_request("file_size must be a whole number", name="file_size", reason="invalid_parameter")
    if size < SMALLEST_CHUNKED:
        raise RestError(400, "file_size_too_small", "File size is less than minimum allowed for this API: 20000000")
    name = tree.check_name(body.get("file_name")) if body.get("file_name") else None
    if file_id is None:
        tree.ensure_free(call, folder_id, name or "", "file")
    session = {"id": clock.token_hex(16).upper(), "folder_id": folder_id, "file_id": file_id, "name": name,
               "size": size, "part_size": PART_SIZE, "total_parts": -(-size // PART_SIZE), "parts": [],
               "expires_at": (clock.utcnow() + timedelta(days=7)).replace(microsecond=0).isoformat()}
    call.state.set_meta(SESSION_KEY + session["id"], session)
    call.status = 201
    return _session_answer(session)


def create_session(call: Call) -> dict:
    parent = access.item(call, "folder", str((call.body or {}).get("folder_id", "")), UPLOAD)
    if not (call.body or {}).get("file_name"):
        raise errors.bad_request("file_name is required", name="file_name", reason="missing_parameter")
    return _open_session(call, parent["id"], None)


def create_version_session(call: Call) -> dict:
    row = access.item(call, "file", call.params["file_id"], EDIT)
    return _open_session(call, row["parent_id"], row["id"])


def get_session(call: Call) -> dict:
    return _session_answer(_session(call))


def upload_part(call: Call) -> dict:
    session = _session(call)
    data: bytes = call.body or b""
    matched = CONTENT_RANGE.match(call.params.get("content-range") or "")
    if not matched:
        raise RestError(416, "range_not_satisfiable", "Content-Range is missing or malformed")
    start, end, total = map(int, matched.groups())
    if total != session["size"] or end - start + 1 != len(data) or start % session["part_size"]:
        raise RestError(416, "range_not_satisfiable", "The part does not fit the session's size and part size")
    digest = (call.params.get("digest") or "").removeprefix("sha=").removeprefix("SHA=")
    if digest != base64.b64encode(hashlib.sha1(data, usedforsecurity=False).digest()).decode():
        raise RestError(412, "sha1_mismatch", "The part's digest does not match its contents")
    sha1 = contents.keep(call.state, data)
    part = {"part_id": sha1[:8].upper(), "offset": start, "size": len(data), "sha1": sha1}
    session["parts"] = [p for p in session["parts"] if p["offset"] != start] + [part]
    call.state.set_meta(SESSION_KEY + session["id"], session)
    return {"part": part}


def list_parts(call: Call) -> dict:
    parts = sorted(_session(call)["parts"], key=lambda p: p["offset"])
    return offset_page(call, parts, default_limit=1000)


def abort_session(call: Call) -> None:
    _session(call)
    call.state.set_meta(SESSION_KEY + call.params["upload_session_id"], None)


def commit(call: Call) -> dict:
    session = _session(call)
    parts = sorted(session["parts"], key=lambda p: p["offset"])
    data = b"".join(contents.read(call.state, p["sha1"]) or b"" for p in parts)
    digest = (call.params.get("digest") or "").removeprefix("sha=").removeprefix("SHA=")
    if len(data) != session["size"]:
        raise RestError(400, "upload_session_not_completed", "Not every part of the session has been uploaded")
    if digest != base64.b64encode(hashlib.sha1(data, usedforsecurity=False).digest()).decode():
        raise RestError(422, "sha1_mismatch", "The file's digest does not match the parts' contents")
    sha1 = contents.keep(call.state, data)
    if session["file_id"]:
        row: Row = access.item(call, "file", session["file_id"], EDIT)
        add_version(call, row, sha1, len(data))
    else:
        name = session["name"]
        tree.ensure_free(call, session["folder_id"], name, "file")
        row = new_file(call, session["folder_id"], name, sha1, len(data))
    call.state.set_meta(SESSION_KEY + session["id"], None)
    call.status = 201
    return {"total_count": 1, "entries": [items.answer(call, row)]}


HANDLERS = {
    "uploads.upload_file": upload, "uploads.upload_file_version": upload_version,
    "uploads.preflight_file_upload_check": preflight,
    "downloads.download_file": download, "downloads.get_download_file_url": download,
    "chunked_uploads.create_file_upload_session": create_session,
    "chunked_uploads.create_file_upload_session_for_existing_file": create_version_session,
    "chunked_uploads.get_file_upload_session_by_id": get_session,
    "chunked_uploads.upload_file_part": upload_part, "chunked_uploads.get_file_upload_session_parts": list_parts,
    "chunked_uploads.delete_file_upload_session_by_id": abort_session,
    "chunked_uploads.create_file_upload_session_commit": commit,
}
