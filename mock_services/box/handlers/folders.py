"""Folders: get, items (sorted, offset or marker paging), create, update (rename, move,
describe, share), copy, delete to the trash; and the trash's folders and items."""

from __future__ import annotations

from mock_services.box import access, errors, tree
from mock_services.box.access import EDIT, ROOT, UPLOAD
from mock_services.box.handlers import items, trashed
from mock_services.box.handlers.copying import copy_tree
from mock_services.box.handlers.paging import page
from mock_services.box.resources import (
    fields_asked,
    folder_full,
    mini,
    new_id,
    now,
    select,
)
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row

TYPE_ORDER = {"folder": 0, "file": 1, "web_link": 2}
SORT_KEYS = {"id": lambda r: int(r["id"]) if r["id"].isdigit() else 0, "name": lambda r: r.get("name", "").lower(),
             "date": lambda r: r.get("modified_at") or "", "size": lambda r: r.get("size") or 0}


def _sorted(call: Call, rows: list[Row]) -> list[Row]:
    key = SORT_KEYS[call.arg("sort", "name")]
    ordered = sorted(rows, key=key, reverse=call.arg("direction", "ASC") == "DESC")
    return sorted(ordered, key=lambda r: TYPE_ORDER.get(r["type"], 3))


def _entries(call: Call, rows: list[Row]) -> list[dict]:
    asked = fields_asked(call)
    if asked is None:
        return [mini(call, r) for r in rows]
    return [select(items.answer(call, r), r["type"], asked) for r in rows]


def _order(call: Call) -> list[dict]:
    return [{"by": "type", "direction": "ASC"}, {"by": call.arg("sort", "name"), "direction": call.arg("direction", "ASC")}]


def _listed(call: Call, folder: Row) -> list[Row]:
    """A folder's items; a user's root holds what they own there and what others shared with them."""
    if folder["id"] != ROOT:
        return _sorted(call, tree.children(call, folder["id"]))
    own = [r for r in tree.children(call, ROOT) if r.get("owned_by_id") == call.user]
    shared = []
    for collab in call.state.rows("box_collaborations", accessible_by_id=call.user):
        row = call.state.first(access.TABLES[collab["item_type"]], id=collab["item_id"])
        if row and row.get("item_status") == "active" and collab.get("status", "accepted") == "accepted":
            shared.append(row)
    return _sorted(call, own + [r for r in shared if r not in own])


def get_folder(call: Call) -> dict:
    row, role = items.get(call, "folder", call.params["folder_id"])
    listed = _listed(call, row)
    collection = {"total_count": len(listed), "entries": [mini(call, r) for r in listed[:100]], "offset": 0,
                  "limit": 100, "order": _order(call)}
    return select(folder_full(call, row, role, collection), "folder", fields_asked(call))


def folder_items(call: Call) -> dict:
    row, _ = items.get(call, "folder", call.params["folder_id"])
    listed = _entries(call, _listed(call, row))
    return page(call, listed, order=_order(call))


def create_folder(call: Call) -> dict:
    body = call.body or {}
    parent_id = tree.parent_id(body)
    if not parent_id:
        raise errors.bad_request("parent is required", name="parent", reason="missing_parameter")
    parent = access.item(call, "folder", parent_id, UPLOAD)
    name = tree.check_name(body.get("name"))
    tree.ensure_free(call, parent["id"], name, "folder")
    when = now()
    row = {"id": new_id(), "type": "folder", "name": name, "parent_id": parent["id"], "created_at": when,
           "modified_at": when, "owned_by_id": parent.get("owned_by_id") if parent["id"] != ROOT else call.user,
           "created_by_id": call.user, "modified_by_id": call.user, "description": "", "item_status": "active",
           "size": 0, "sequence_id": "0", "etag": "0"}
    call.state.insert("box_folders", row)
    tree.record(call, "ITEM_CREATE", row)
    call.status = 201
    return get_folder(_with_id(call, row["id"]))


def _with_id(call: Call, folder_id: str) -> Call:
    call.params = {**call.params, "folder_id": folder_id}
    return call


def update_folder(call: Call) -> dict:
    if call.params["folder_id"] == ROOT and set(call.body or {}) - {"collections"}:
        raise errors.forbidden("The root folder cannot be changed")
    row, _ = items.get(call, "folder", call.params["folder_id"])
    items.update(call, row, call.body or {})
    return get_folder(call)


def delete_folder(call: Call) -> None:
    if call.params["folder_id"] == ROOT:
        raise errors.forbidden("The root folder cannot be deleted")
    row = access.item(call, "folder", call.params["folder_id"], EDIT)
    tree.check_etag(call, row)
    if tree.children(call, row["id"]) and not call.arg("recursive"):
        raise RestError(400, "folder_not_empty", "Cannot delete - folder not empty")
    tree.trash(call, row)


def copy_folder(call: Call) -> dict:
    row = access.item(call, "folder", call.params["folder_id"], access.DOWNLOAD)
    if row["id"] == ROOT:
        raise errors.forbidden("The root folder cannot be copied")
    copied = copy_tree(call, row, call.body or {})
    call.status = 201
    return get_folder(_with_id(call, copied["id"]))


trashed_folder, restore_folder, purge_folder = trashed.handlers("folder")


def trash_items(call: Call) -> dict:
    """The caller's trash: the items trashed on their own (not those inside a trashed folder)."""
    found = []
    for kind, table in access.TABLES.items():
        for row in call.state.rows(table, item_status="trashed"):
            parent = call.state.first("box_folders", id=row.get("parent_id"))
            inside_trashed = parent is not None and parent.get("item_status") == "trashed"
            if not inside_trashed and access.role_on(call, kind, row) in ("owner", "co-owner", "editor"):
                found.append(row)
    return page(call, _entries(call, _sorted(call, found)), order=_order(call))


HANDLERS = {
    "folders.get_folder_by_id": get_folder, "folders.get_folder_items": folder_items,
    "folders.create_folder": create_folder, "folders.update_folder_by_id": update_folder,
    "folders.delete_folder_by_id": delete_folder, "folders.copy_folder": copy_folder,
    "trashed_folders.get_trashed_folder_by_id": trashed_folder,
    "trashed_folders.restore_folder_from_trash": restore_folder,
    "trashed_folders.delete_trashed_folder_by_id": purge_folder,
    "trashed_items.get_trashed_items": trash_items,
    "shared_links_folders.get_shared_link_for_folder": get_folder,
    "shared_links_folders.add_share_link_to_folder": update_folder,
    "shared_links_folders.update_shared_link_on_folder": update_folder,
    "shared_links_folders.remove_shared_link_from_folder": update_folder,
}
