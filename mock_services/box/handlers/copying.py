"""Copies: a file (its current or a named version, as a new file with one version) and a
folder with everything under it, each copy a new item with a new id."""

from __future__ import annotations

from typing import Any

from mock_services.box import access, errors, tree
from mock_services.box.access import UPLOAD
from mock_services.box.resources import current_version_id, existing, new_id, now
from mock_services.rest.router import Call
from mock_services.store import Row


def _target(call: Call, body: dict, original: Row) -> tuple[Row, str]:
    parent_id = tree.parent_id(body)
    if not parent_id:
        raise errors.bad_request("parent is required", name="parent", reason="missing_parameter")
    parent = access.item(call, "folder", parent_id, UPLOAD)
    name = tree.check_name(body["name"]) if body.get("name") else original["name"]
    tree.ensure_free(call, parent["id"], name, original["type"])
    return parent, name


def _new_version(call: Call, file_row: Row, sha1: str, size: int, number: int) -> Row:
    when = now()
    version = {"id": new_id(), "type": "file_version", "file_id": file_row["id"], "sha_1": sha1,
               "name": file_row["name"], "size": size, "created_at": when, "modified_at": when,
               "modified_by_id": call.user, "version_number": str(number)}
    return call.state.insert("box_file_versions", version)


def new_file(call: Call, parent_id: str, name: str, sha1: str, size: int, extra: dict[str, Any] | None = None) -> Row:
    """A file with its first version (uploads and copies make them alike)."""
    when = now()
    row = {"id": new_id(), "type": "file", "name": name, "parent_id": parent_id, "created_at": when,
           "modified_at": when, "created_by_id": call.user, "modified_by_id": call.user,
           "owned_by_id": call.user, "size": size, "extension": name.rsplit(".", 1)[1] if "." in name else "",
           "sha_1": sha1, "version_number": "1", "comment_count": 0, "item_status": "active",
           "sequence_id": "0", "etag": "0", "description": "", **(extra or {})}
    row["file_version_id"] = _new_version(call, row, sha1, size, 1)["id"]
    call.state.insert("box_files", row)
    tree.record(call, "ITEM_UPLOAD", row)
    return row


def add_version(call: Call, row: Row, sha1: str, size: int) -> Row:
    number = int(row.get("version_number") or 1) + 1
    if not row.get("file_version_id"):
        row["file_version_id"] = current_version_id(call, row)
    version = _new_version(call, row, sha1, size, number)
    row.update(sha_1=sha1, size=size, version_number=str(number), file_version_id=version["id"])
    call.state.update("box_files", tree.touched(call, row, "ITEM_UPLOAD"))
    return row


def copy_file(call: Call, row: Row, body: dict) -> Row:
    parent, name = _target(call, body, row)
    sha1, size = row.get("sha_1"), row.get("size", 0)
    if body.get("version"):
        version = existing(call, "box_file_versions", str(body["version"]), "file_version", file_id=row["id"])
        sha1, size = version.get("sha_1"), version.get("size", 0)
    return new_file(call, parent["id"], name, sha1, size, {"description": row.get("description", "")})


def copy_tree(call: Call, row: Row, body: dict) -> Row:
    parent, name = _target(call, body, row)
    tree.ensure_not_inside(call, row["id"], parent["id"])
    return _copy_folder(call, row, parent["id"], name)


def _copy_folder(call: Call, row: Row, parent_id: str, name: str) -> Row:
    when = now()
    copied = {**row, "id": new_id(), "name": name, "parent_id": parent_id, "created_at": when, "modified_at": when,
              "created_by_id": call.user, "modified_by_id": call.user, "owned_by_id": call.user,
              "sequence_id": "0", "etag": "0", "shared_link": None, "collections": []}
    call.state.insert("box_folders", copied)
    for child in tree.children(call, row["id"]):
        if child["type"] == "folder":
            _copy_folder(call, child, copied["id"], child["name"])
        elif child["type"] == "file":
            new_file(call, copied["id"], child["name"], child.get("sha_1"), child.get("size", 0))
        else:
            call.state.insert("box_web_links", {**child, "id": new_id(), "parent_id": copied["id"], "created_at": when,
                                                "shared_link": None, "sequence_id": "0", "etag": "0"})
    tree.record(call, "ITEM_COPY", copied)
    return copied
