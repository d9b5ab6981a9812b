"""Writes every file handler shares: a new file, new contents (a revision each), a move between
folders, permanent removal (with what was in a folder), and the change log `changes.list`
reads. Each write tells the call's view to read the rows again."""

from __future__ import annotations

from mock_services.drive import access, contents
from mock_services.drive.resources import new_id, stamp
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row

ID_CHARACTERS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def record_change(call: Call, row: Row, removed: bool = False) -> None:
    """One entry of the change log; a removal keeps who could see the file, since after it
    nobody's role can be read any more."""
    seen = access.view(call)
    audience = sorted(u for u in seen.users if seen.role(row, u) != "none") if removed else None
    number = max((int(c["id"]) for c in call.state.rows("drive_changes")), default=0) + 1
    call.state.insert("drive_changes", {"id": str(number), "file_id": row["id"], "time": stamp(), "removed": removed,
                                        **({"audience": audience} if removed else {})})


def save(call: Call, row: Row, change: bool = True) -> Row:
    call.state.update("drive_files", row)
    access.changed(call)
    if change:
        record_change(call, row)
    return row


def parent_for_writing(call: Call, parent_id: str) -> Row:
    folder = access.file(call, parent_id, "writer")
    if folder["mime_type"] != contents.FOLDER:
        raise RestError(400, "invalidParent", f"The parent {parent_id} is not a folder.")
    return folder


def check_parents(call: Call, parents: object) -> list[str]:
    """A create's `parents`: one folder the user may write in (My Drive items have one parent)."""
    if parents is None or parents == []:
        return [access.root_id(call)]
    if not isinstance(parents, list) or not all(isinstance(p, str) for p in parents):
        raise RestError(400, "invalid", "Invalid value for parents: a list of folder ids")
    if len(parents) > 1:
        raise RestError(403, "cannotAddParent", "Increasing the number of parents is not allowed.")
    return [parent_for_writing(call, parents[0])["id"]]


def fresh_id(call: Call, wanted: object) -> str:
    """A drawn id, or the one the caller generated beforehand (files.generateIds)."""
    if wanted is None:
        return new_id()
    if not isinstance(wanted, str) or len(wanted) < 20 or not set(wanted) <= ID_CHARACTERS:
        raise RestError(400, "invalid", f"Invalid value for id: {wanted!r}")
    if call.state.first("drive_files", id=wanted):
        raise RestError(409, "duplicate", "A file already exists with the provided ID.")
    return wanted


def new_file(call: Call, fields: Row) -> Row:
    now = stamp()
    row = {"created_time": now, "modified_time": now, "owner_id": call.user, "modified_by_id": call.user,
           "starred": False, "trashed": False, "version": 1, **fields}
    call.state.insert("drive_files", row)
    access.changed(call)
    record_change(call, row)
    return row


def set_content(call: Call, row: Row, data: bytes, keep_forever: bool = False, filename: str | None = None) -> None:
    """New contents: kept by hash, the file's checksums and size, and a revision of their own."""
    sha1 = contents.keep(call.state, data)
    binary = not contents.is_google_type(row["mime_type"])
    digests = contents.digests(data) if binary else {"sha1": sha1}
    revision = {"id": new_id("0B", 44) if binary else str(int(row.get("version") or 1)), "file_id": row["id"],
                "sha1": sha1, "size": len(data), "mime_type": row["mime_type"], "modified_time": stamp(),
                "modified_by_id": call.user, "keep_forever": keep_forever,
                **({"md5": digests["md5"], "original_filename": filename or row["name"]} if binary else {})}
    call.state.insert("drive_revisions", revision)
    row.update({"sha1": sha1, "size": len(data), "head_revision_id": revision["id"]})
    if binary:
        row.update({"md5": digests["md5"], "sha256": digests["sha256"],
                    "original_filename": row.get("original_filename") or filename or row["name"]})


def descendants(call: Call, row: Row) -> list[Row]:
    seen = access.view(call)
    return [f for f in seen.files.values() if any(a["id"] == row["id"] for a in seen.ancestors(f))]


def remove(call: Call, row: Row) -> None:
    """Gone for good, with what was in it and everything hanging off it."""
    for item in [row, *descendants(call, row)]:
        record_change(call, item, removed=True)
        for table, column in (("drive_permissions", "file_id"), ("drive_revisions", "file_id"),
                              ("drive_comments", "file_id"), ("drive_replies", "file_id")):
            for dependent in call.state.rows(table, **{column: item["id"]}):
                call.state.delete(table, dependent)
        call.state.delete("drive_files", item)
    access.changed(call)
