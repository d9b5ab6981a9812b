"""Files: get, update (rename, move, describe, share, favorite), copy, delete to the trash,
the trash's files, versions (list, get, promote, delete, restore) and shared items."""

from __future__ import annotations

from urllib.parse import parse_qsl

from mock_services.box import access, errors, tree
from mock_services.box.access import EDIT, TABLES
from mock_services.box.handlers import items, trashed
from mock_services.box.handlers.copying import add_version, copy_file
from mock_services.box.handlers.paging import offset_page
from mock_services.box.resources import current_version_id, existing, now, select, user_mini
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row


def get_file(call: Call) -> dict:
    row, _ = items.get(call, "file", call.params["file_id"])
    return items.answer(call, row)


def update_file(call: Call) -> dict:
    row, _ = items.get(call, "file", call.params["file_id"])
    items.update(call, row, call.body or {})
    return items.answer(call, row)


def delete_file(call: Call) -> None:
    row = access.item(call, "file", call.params["file_id"], EDIT)
    tree.check_etag(call, row)
    tree.trash(call, row)


def copy(call: Call) -> dict:
    row = access.item(call, "file", call.params["file_id"], access.DOWNLOAD)
    copied = copy_file(call, row, call.body or {})
    call.status = 201
    return items.answer(call, copied)


trashed_file, restore_file, purge_file = trashed.handlers("file")


def _version(call: Call, row: Row, version: Row) -> dict:
    full = {"type": "file_version", "id": version["id"], "sha1": version.get("sha_1"),
            "name": version.get("name", row["name"]), "size": version.get("size", 0),
            "created_at": version.get("created_at"), "modified_at": version.get("modified_at"),
            "modified_by": user_mini(call, version.get("modified_by_id")),
            "trashed_at": version.get("trashed_at"), "trashed_by": None, "restored_at": None, "restored_by": None,
            "purged_at": None, "uploader_display_name": None, "version_number": version.get("version_number")}
    return select(full, "file_version", None, tuple(full))


def versions(call: Call) -> dict:
    """Earlier versions only, newest first (the current one is the file itself)."""
    row, _ = items.get(call, "file", call.params["file_id"])
    current = current_version_id(call, row)
    earlier = [v for v in call.state.rows("box_file_versions", file_id=row["id"]) if v["id"] != current]
    return offset_page(call, [_version(call, row, v) for v in reversed(earlier)], default_limit=1000)


def _version_row(call: Call, row: Row) -> Row:
    found = existing(call, "box_file_versions", call.params["file_version_id"], "file_version", file_id=row["id"])
    return found


def get_version(call: Call) -> dict:
    row, _ = items.get(call, "file", call.params["file_id"])
    return _version(call, row, _version_row(call, row))


def promote_version(call: Call) -> dict:
    """Make an earlier version current: a new version with its contents."""
    row = access.item(call, "file", call.params["file_id"], EDIT)
    version_id = str((call.body or {}).get("id", ""))
    earlier = existing(call, "box_file_versions", version_id, "file_version", file_id=row["id"])
    add_version(call, row, earlier.get("sha_1"), earlier.get("size", 0))
    call.status = 201
    return _version(call, row, call.state.first("box_file_versions", id=row["file_version_id"]))


def delete_version(call: Call) -> None:
    row = access.item(call, "file", call.params["file_id"], EDIT)
    tree.check_etag(call, row)
    version = _version_row(call, row)
    if version["id"] == current_version_id(call, row):
        raise errors.bad_request("The current version cannot be deleted", reason="invalid_parameter")
    version["trashed_at"] = now()
    call.state.update("box_file_versions", version)


def update_version(call: Call) -> dict:
    """`trashed_at: null` restores a deleted version."""
    row = access.item(call, "file", call.params["file_id"], EDIT)
    version = _version_row(call, row)
    if "trashed_at" in (call.body or {}) and (call.body or {})["trashed_at"] is None:
        version["trashed_at"] = None
        call.state.update("box_file_versions", version)
    return _version(call, row, version)


def shared_item(call: Call) -> dict:
    """The item a shared link (the `BoxApi` header) points at, with its password if it has one."""
    header = dict(parse_qsl(call.params.get("boxapi") or "", keep_blank_values=True))
    url = header.get("shared_link", "")
    for table in TABLES.values():
        for row in call.state.rows(table, item_status="active"):
            link = row.get("shared_link") or {}
            if url and link.get("url") == url:
                if link.get("password") and link["password"] != header.get("shared_link_password"):
                    raise RestError(403, "incorrect_shared_item_password", "Incorrect shared item password")
                return items.answer(call, row)
    raise errors.not_found("shared item")


HANDLERS = {
    "files.get_file_by_id": get_file, "files.update_file_by_id": update_file, "files.delete_file_by_id": delete_file,
    "files.copy_file": copy,
    "trashed_files.get_trashed_file_by_id": trashed_file, "trashed_files.restore_file_from_trash": restore_file,
    "trashed_files.delete_trashed_file_by_id": purge_file,
    "file_versions.get_file_versions": versions, "file_versions.get_file_version_by_id": get_version,
    "file_versions.promote_file_version": promote_version, "file_versions.delete_file_version_by_id": delete_version,
    "file_versions.update_file_version_by_id": update_version,
    "shared_links_files.get_shared_link_for_file": get_file, "shared_links_files.add_share_link_to_file": update_file,
    "shared_links_files.update_shared_link_on_file": update_file,
    "shared_links_files.remove_shared_link_from_file": update_file,
    "shared_links_files.find_file_for_shared_link": shared_item,
    "shared_links_folders.find_folder_for_shared_link": shared_item,
    "shared_links_web_links.find_web_link_for_shared_link": shared_item,
}
