"""Sharing: collaborations (who holds which role on a folder or file), web links, and the
Favorites collection."""

from __future__ import annotations

from mock_services.box import access, errors, tree
from mock_services.box.access import EDIT, RANK, SHARE, UPLOAD
from mock_services.box.handlers import items, trashed
from mock_services.box.handlers.paging import offset_page
from mock_services.box.resources import existing, mini, new_id, now, user_mini
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row

STATUSES = ("accepted", "pending", "rejected")


def _holder(call: Call, row: Row) -> dict | None:
    if row.get("accessible_by_type") == "group":
        group = call.state.first("box_groups", id=row["accessible_by_id"]) or {}
        return {"type": "group", "id": row["accessible_by_id"], "name": group.get("name", ""), "group_type": "managed_group"}
    return user_mini(call, row.get("accessible_by_id"))


def _collaboration(call: Call, row: Row) -> dict:
    target = call.state.first(access.TABLES[row["item_type"]], id=row["item_id"])
    return {"type": "collaboration", "id": row["id"], "item": mini(call, target) if target else None,
            "accessible_by": _holder(call, row), "invite_email": row.get("invite_email"), "role": row["role"],
            "expires_at": row.get("expires_at"), "is_access_only": bool(row.get("is_access_only")),
            "status": row.get("status", "accepted"), "acknowledged_at": row.get("created_at"),
            "created_by": user_mini(call, row.get("created_by_id")), "created_at": row.get("created_at"),
            "modified_at": row.get("modified_at")}


def _role(value: object) -> str:
    if value not in RANK or value == "owner":
        raise errors.bad_request(f"Invalid collaboration role: {value}", name="role", reason="invalid_parameter")
    return str(value)


def create_collaboration(call: Call) -> dict:
    body = call.body or {}
    target, holder = body.get("item") or {}, body.get("accessible_by") or {}
    if target.get("type") not in ("file", "folder"):
        raise errors.bad_request("item.type must be file or folder", name="item", reason="invalid_parameter")
    row = access.item(call, target["type"], str(target.get("id", "")), SHARE)
    role = _role(body.get("role"))
    kind = holder.get("type", "user")
    if kind == "group":
        found = call.state.first("box_groups", id=str(holder.get("id", "")))
    else:
        found = (call.state.first("box_users", id=str(holder["id"])) if holder.get("id")
                 else call.state.first("box_users", login=holder.get("login")))
    if found is None:
        raise errors.not_found(kind)
    for already in call.state.rows("box_collaborations", item_id=row["id"], accessible_by_id=found["id"]):
        raise RestError(400, "user_already_collaborator", "User is already a collaborator",
                        details={"conflicts": [_collaboration(call, already)]})
    when = now()
    collab = {"id": new_id(), "item_id": row["id"], "item_type": target["type"], "accessible_by_id": found["id"],
              "accessible_by_type": kind, "role": role, "status": "accepted", "created_by_id": call.user,
              "created_at": when, "modified_at": when, "expires_at": body.get("expires_at"),
              "is_access_only": bool(body.get("is_access_only")), "invite_email": None}
    call.state.insert("box_collaborations", collab)
    tree.record(call, "COLLAB_INVITE_COLLABORATOR", row)
    call.status = 201
    return _collaboration(call, collab)


def _collab_row(call: Call, needs: str) -> Row:
    row = existing(call, "box_collaborations", call.params["collaboration_id"], "collaboration")
    if row.get("accessible_by_id") != call.user or needs == SHARE:
        access.item(call, row["item_type"], row["item_id"], needs)
    return row


def get_collaboration(call: Call) -> dict:
    return _collaboration(call, _collab_row(call, access.SEE))


def update_collaboration(call: Call) -> dict:
    body = call.body or {}
    own_status = set(body) <= {"status"}
    row = _collab_row(call, access.SEE if own_status else SHARE)
    if "role" in body:
        row["role"] = _role(body["role"])
    if "status" in body:
        if body["status"] not in STATUSES:
            raise errors.bad_request("Invalid status", name="status", reason="invalid_parameter")
        row["status"] = body["status"]
    for key in ("expires_at", "can_view_path"):
        if key in body:
            row[key] = body[key]
    row["modified_at"] = now()
    call.state.update("box_collaborations", row)
    return _collaboration(call, row)


def delete_collaboration(call: Call) -> None:
    row = _collab_row(call, SHARE)
    call.state.delete("box_collaborations", row)


def _item_collaborations(call: Call, kind: str, key: str) -> dict:
    row = access.item(call, kind, call.params[key])
    found = [_collaboration(call, c) for c in call.state.rows("box_collaborations", item_id=row["id"], item_type=kind)]
    return {"entries": found, "limit": len(found), "next_marker": None}


def file_collaborations(call: Call) -> dict:
    return _item_collaborations(call, "file", "file_id")


def folder_collaborations(call: Call) -> dict:
    return _item_collaborations(call, "folder", "folder_id")


def pending_collaborations(call: Call) -> dict:
    status = call.arg("status", "pending")
    found = [_collaboration(call, c) for c in call.state.rows("box_collaborations", accessible_by_id=call.user)
             if c.get("status", "accepted") == status]
    return offset_page(call, found)


def group_collaborations(call: Call) -> dict:
    found = [_collaboration(call, c) for c in call.state.rows("box_collaborations",
                                                               accessible_by_id=call.params["group_id"])]
    return offset_page(call, found)


def create_web_link(call: Call) -> dict:
    body = call.body or {}
    parent = access.item(call, "folder", tree.parent_id(body), UPLOAD)
    url = body.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise errors.bad_request("url must start with http:// or https://", name="url", reason="invalid_parameter")
    name = tree.check_name(body.get("name") or url.split("://", 1)[1].split("/", 1)[0])
    when = now()
    row = {"id": new_id(), "type": "web_link", "name": name, "url": url, "parent_id": parent["id"],
           "description": body.get("description", ""), "created_at": when, "modified_at": when,
           "created_by_id": call.user, "modified_by_id": call.user, "owned_by_id": call.user,
           "item_status": "active", "sequence_id": "0", "etag": "0"}
    call.state.insert("box_web_links", row)
    call.status = 201
    return items.answer(call, row)


def get_web_link(call: Call) -> dict:
    row, _ = items.get(call, "web_link", call.params["web_link_id"])
    return items.answer(call, row)


def update_web_link(call: Call) -> dict:
    row, _ = items.get(call, "web_link", call.params["web_link_id"])
    items.update(call, row, call.body or {})
    return items.answer(call, row)


def delete_web_link(call: Call) -> None:
    tree.trash(call, access.item(call, "web_link", call.params["web_link_id"], EDIT))


trashed_web_link, restore_web_link, purge_web_link = trashed.handlers("web_link")


def _favorites(call: Call) -> dict:
    return {"type": "collection", "id": items.favorites_id(call.user), "name": "Favorites",
            "collection_type": "favorites"}


def collections(call: Call) -> dict:
    return offset_page(call, [_favorites(call)])


def collection(call: Call) -> dict:
    if call.params["collection_id"] != items.favorites_id(call.user):
        raise errors.not_found("collection")
    return _favorites(call)


def collection_items(call: Call) -> dict:
    favorites = collection(call)["id"]
    found = []
    for kind, table in access.TABLES.items():
        for row in call.state.rows(table, item_status="active"):
            if favorites in (row.get("collections") or []) and access.role_on(call, kind, row):
                found.append(mini(call, row))
    return offset_page(call, found)


HANDLERS = {
    "user_collaborations.create_collaboration": create_collaboration,
    "user_collaborations.get_collaboration_by_id": get_collaboration,
    "user_collaborations.update_collaboration_by_id": update_collaboration,
    "user_collaborations.delete_collaboration_by_id": delete_collaboration,
    "list_collaborations.get_file_collaborations": file_collaborations,
    "list_collaborations.get_folder_collaborations": folder_collaborations,
    "list_collaborations.get_collaborations": pending_collaborations,
    "list_collaborations.get_group_collaborations": group_collaborations,
    "web_links.create_web_link": create_web_link, "web_links.get_web_link_by_id": get_web_link,
    "web_links.update_web_link_by_id": update_web_link, "web_links.delete_web_link_by_id": delete_web_link,
    "trashed_web_links.get_trashed_web_link_by_id": trashed_web_link,
    "trashed_web_links.restore_weblink_from_trash": restore_web_link,
    "trashed_web_links.delete_trashed_web_link_by_id": purge_web_link,
    "shared_links_web_links.get_shared_link_for_web_link": get_web_link,
    "shared_links_web_links.add_share_link_to_web_link": update_web_link,
    "shared_links_web_links.update_shared_link_on_web_link": update_web_link,
    "shared_links_web_links.remove_shared_link_from_web_link": update_web_link,
    "collections.get_collections": collections, "collections.get_collection_by_id": collection,
    "collections.get_collection_items": collection_items,
}
