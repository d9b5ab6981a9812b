"""files.get (metadata, or the bytes with `alt=media` and `Range`), files.list (Drive's query
language, `orderBy`, pages), files.export (Docs Editors files as text, HTML, CSV) and
files.generateIds."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from urllib.parse import quote

from fastapi.responses import Response

from mock_services import blobs
from mock_services.drive import access, contents, query
from mock_services.drive.handlers.paging import page
from mock_services.drive.resources import defaulted, file_json, new_id, permissions_of
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row

ORDER_KEYS = {"createdTime", "folder", "modifiedByMeTime", "modifiedTime", "name", "name_natural", "quotaBytesUsed",
              "recency", "sharedWithMeTime", "starred", "viewedByMeTime"}
EXPORT_LIMIT = 10 * 1024 * 1024


def get_file(call: Call) -> object:
    row = access.file(call, call.params["fileId"])
    if call.arg("alt") == "media":
        return download(call, row, row.get("sha1"))
    return defaulted(call, file_json(call, access.view(call), row), "File")


def download(call: Call, row: Row, sha1: str | None) -> Response:
    if contents.is_google_type(row["mime_type"]):
        raise RestError(403, "fileNotDownloadable",
                        "Only files with binary content can be downloaded. Use Export with Docs Editors files.")
    data = contents.read(call.state, sha1) if sha1 else b""
    if data is None:
        raise RestError(404, "notFound", f"The contents of file {row['id']} are not in this environment.")
    disposition = {"Content-Disposition": f"attachment; filename*=UTF-8''{quote(row['name'], safe='')}"}
    return blobs.ranged(data, call.headers.get("range"), disposition, row["mime_type"])


def export(call: Call) -> Response:
    row = access.file(call, call.params["fileId"])
    source = contents.read(call.state, row.get("sha1")) or b""
    data = contents.exported(row["mime_type"], source, call.params["mimeType"])
    if len(data) > EXPORT_LIMIT:
        raise RestError(403, "exportSizeLimitExceeded", "This file is too large to be exported.")
    return Response(data, media_type=f"{call.params['mimeType']}; charset=utf-8" if call.params["mimeType"].startswith("text/")
                    else call.params["mimeType"])


def _facts(call: Call, row: Row) -> dict[str, Callable[[], object]]:
    """A file's fields as the query language reads them, each read only if a term asks."""
    seen, me = access.view(call), call.user

    def emails(least: str) -> list[str]:
        return [str(p.get("email", "")).lower() for p in permissions_of(seen, row)
                if p.get("email") and access.rank(p["role"]) >= access.rank(least)]

    def when(value: object) -> datetime | None:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")) if value else None

    def visibility() -> str:
        kinds = {(p["type"], bool(p.get("allow_file_discovery"))) for p in seen.permissions.get(row["id"], [])}
        for kind, name in (("anyone", "anyone"), ("domain", "domain")):
            if (kind, True) in kinds:
                return f"{name}CanFind"
            if (kind, False) in kinds:
                return f"{name}WithLink"
        return "limited"

    direct = seen.direct(row, me) if row.get("owner_id") != me else None
    parents = list(row.get("parents") or [])
    return {"name": lambda: row["name"], "mimeType": lambda: row["mime_type"],
            "fullText": lambda: " ".join([row["name"], row.get("description") or "",
                                          contents.searchable(call.state, row["mime_type"], row.get("sha1"))]),
            "modifiedTime": lambda: when(row.get("modified_time")), "createdTime": lambda: when(row.get("created_time")),
            "viewedByMeTime": lambda: None, "sharedWithMeTime": lambda: when(direct.get("created_time") if direct else None),
            "trashed": lambda: seen.trashed(row), "starred": lambda: bool(row.get("starred")),
            "sharedWithMe": lambda: direct is not None, "hidden": lambda: False, "visibility": visibility,
            "parents": lambda: parents + (["root"] if access.root_id(call) in parents else []),
            "owners": lambda: emails("owner"), "writers": lambda: emails("writer"), "readers": lambda: emails("reader"),
            "properties": lambda: row.get("properties") or {}, "appProperties": lambda: row.get("app_properties") or {}}


def _ordered(call: Call, rows: list[Row], order_by: str) -> list[Row]:
    seen = access.view(call)
    keys = []
    for item in [k.strip() for k in order_by.split(",") if k.strip()]:
        name, _, direction = item.partition(" ")
        if name not in ORDER_KEYS or direction.strip() not in ("", "desc"):
            raise RestError(400, "invalid", f"Invalid Value: orderBy {item!r}")
        keys.append((name, direction.strip() == "desc"))

    def value(row: Row, name: str) -> object:
        if name == "folder":
            return row["mime_type"] != contents.FOLDER
        if name == "starred":
            return not row.get("starred")
        if name in ("name", "name_natural"):
            return row["name"].lower()
        if name == "quotaBytesUsed":
            return int(row.get("size") or 0)
        if name == "sharedWithMeTime":
            direct = seen.direct(row, call.user)
            return direct.get("created_time", "") if direct else ""
        return row.get("created_time" if name == "createdTime" else "modified_time") or ""

    for name, descending in reversed(keys):  # a stable sort per key, the last key first
        rows = sorted(rows, key=lambda r: value(r, name), reverse=descending)
    return rows


def list_files(call: Call) -> dict:
    if "appDataFolder" in str(call.arg("spaces", "")):
        return defaulted(call, {"kind": "drive#fileList", "incompleteSearch": False, "files": []}, "FileList")
    try:
        condition = query.parse(call.arg("q")) if call.arg("q") else None
    except query.InvalidQuery:
        raise RestError(400, "invalid", "Invalid Value") from None
    seen = access.view(call)
    roots = {u.get("root_folder_id") for u in seen.users.values()}
    found = [row for row in seen.files.values()
             if row["id"] not in roots and seen.role(row, call.user, listing=True) != "none"
             and (condition is None or query.matches(condition, _facts(call, row)))]
    order_by = call.arg("orderBy") or "modifiedTime desc"
    shown, following = page(call, _ordered(call, found, order_by), call.arg("q"), order_by)
    answer = {"kind": "drive#fileList", "incompleteSearch": False, "nextPageToken": following,
              "files": [file_json(call, seen, row) for row in shown]}
    return defaulted(call, {k: v for k, v in answer.items() if v is not None}, "FileList")


def generate_ids(call: Call) -> dict:
    count = call.arg("count", 10)
    if not 1 <= count <= 1000:
        raise RestError(400, "invalid", f"Invalid value '{count}'. Values must be within the range: [1, 1000]")
    return {"kind": "drive#generatedIds", "space": call.arg("space", "drive"), "ids": [new_id() for _ in range(count)]}


HANDLERS = {"files.get": get_file, "files.list": list_files, "files.export": export,
            "files.generateIds": generate_ids}
