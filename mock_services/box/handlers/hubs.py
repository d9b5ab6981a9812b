"""Hubs (Box's 2025.0 API version, asked for with the `box-version` header): hubs, their
items, copies."""

from __future__ import annotations

from mock_services.box import access, errors
from mock_services.box.handlers.paging import marker_page
from mock_services.box.resources import existing, new_id, now, user_mini
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row

VERSION = "2025.0"
EDITABLE = ("title", "description", "is_ai_enabled", "is_collaboration_restricted_to_enterprise",
            "can_non_owners_invite", "can_shared_link_be_created", "can_public_shared_link_be_created")


def _versioned(call: Call) -> None:
    given = call.params.get("box-version")
    if given != VERSION:
        raise RestError(400, "bad_request", f"This endpoint needs the header box-version: {VERSION}"
                        + (f" (got {given})" if given else ""))


def _hub(call: Call, row: Row) -> dict:
    return {"type": "hubs", "id": row["id"], "title": row.get("title", ""), "description": row.get("description", ""),
            "created_at": row.get("created_at"), "updated_at": row.get("updated_at"),
            "created_by": user_mini(call, row.get("created_by_id")),
            "updated_by": user_mini(call, row.get("updated_by_id")), "view_count": row.get("view_count", 0),
            **{k: row.get(k, k != "is_collaboration_restricted_to_enterprise") for k in EDITABLE[2:]}}


def _row(call: Call, hub_id: str) -> Row:
    _versioned(call)
    row = existing(call, "box_hubs", hub_id, "hub")
    return row


def _title(body: dict) -> str:
    title = body.get("title")
    if not isinstance(title, str) or not title.strip() or len(title) > 50:
        raise errors.bad_request("title is required (up to 50 characters)", name="title", reason="invalid_parameter")
    return title


def create_hub(call: Call) -> dict:
    _versioned(call)
    body = call.body or {}
    when = now()
    row = {"id": new_id(), "type": "hubs", "title": _title(body), "description": body.get("description", ""),
           "created_by_id": call.user, "updated_by_id": call.user, "created_at": when, "updated_at": when,
           "is_ai_enabled": True, "can_non_owners_invite": True, "can_shared_link_be_created": True,
           "is_collaboration_restricted_to_enterprise": False, "view_count": 0}
    call.state.insert("box_hubs", row)
    call.status = 201
    return _hub(call, row)


def get_hub(call: Call) -> dict:
    return _hub(call, _row(call, call.params["hub_id"]))


def update_hub(call: Call) -> dict:
    row = _row(call, call.params["hub_id"])
    body = call.body or {}
    if "title" in body:
        _title(body)
    row.update({k: body[k] for k in EDITABLE if k in body}, updated_at=now(), updated_by_id=call.user)
    call.state.update("box_hubs", row)
    return _hub(call, row)


def delete_hub(call: Call) -> None:
    row = _row(call, call.params["hub_id"])
    for item in call.state.rows("box_hub_items", hub_id=row["id"]):
        call.state.delete("box_hub_items", item)
    call.state.delete("box_hubs", row)


def list_hubs(call: Call) -> dict:
    _versioned(call)
    term = (call.arg("query") or "").lower()
    rows = [r for r in call.state.rows("box_hubs") if term in (r.get("title") or "").lower()]
    if call.arg("sort") in ("name", "updated_at", "view_count"):
        key = {"name": "title"}.get(call.arg("sort"), call.arg("sort"))
        rows.sort(key=lambda r: r.get(key) or 0, reverse=call.arg("direction", "ASC") == "DESC")
    return marker_page(call, [_hub(call, r) for r in rows])


def copy_hub(call: Call) -> dict:
    row = _row(call, call.params["hub_id"])
    body = call.body or {}
    when = now()
    copied = {**row, "id": new_id(), "title": _title(body) if "title" in body else row.get("title"),
              "description": body.get("description", row.get("description")), "created_by_id": call.user,
              "updated_by_id": call.user, "created_at": when, "updated_at": when, "view_count": 0}
    call.state.insert("box_hubs", copied)
    for item in call.state.rows("box_hub_items", hub_id=row["id"]):
        call.state.insert("box_hub_items", {**item, "id": new_id(), "hub_id": copied["id"]})
    call.status = 201
    return _hub(call, copied)


def hub_items(call: Call) -> dict:
    row = _row(call, str(call.arg("hub_id") or ""))
    found = [{"type": i["item_type"], "id": i["item_id"], "name": i.get("item_name", "")}
             for i in call.state.rows("box_hub_items", hub_id=row["id"])]
    return marker_page(call, found)


def manage_items(call: Call) -> dict:
    """Each operation adds or removes one item; each answers on its own, as Box's does."""
    row = _row(call, call.params["hub_id"])
    results = []
    for operation in (call.body or {}).get("operations") or []:
        target = (operation or {}).get("item") or {}
        kind, item_id, action = target.get("type"), str(target.get("id", "")), (operation or {}).get("action")
        status = 200
        try:
            if action not in ("add", "remove") or kind not in access.TABLES:
                raise errors.bad_request("Invalid operation")
            item = access.item(call, kind, item_id)
            existing = call.state.first("box_hub_items", hub_id=row["id"], item_id=item_id, item_type=kind)
            if action == "add" and existing is None:
                call.state.insert("box_hub_items", {"id": new_id(), "hub_id": row["id"], "item_id": item_id,
                                                    "item_type": kind, "item_name": item.get("name", "")})
            elif action == "remove" and existing is not None:
                call.state.delete("box_hub_items", existing)
        except RestError as failed:
            status = failed.status
        results.append({"action": action, "item": {"type": kind, "id": item_id}, "status": status})
    return {"operations": results}


HANDLERS = {
    "hubs.create_hub_v2025_r0": create_hub, "hubs.get_hub_by_id_v2025_r0": get_hub,
    "hubs.update_hub_by_id_v2025_r0": update_hub, "hubs.delete_hub_by_id_v2025_r0": delete_hub,
    "hubs.get_hubs_v2025_r0": list_hubs, "hubs.get_enterprise_hubs_v2025_r0": list_hubs,
    "hubs.copy_hub_v2025_r0": copy_hub,
    "hub_items.get_hub_items_v2025_r0": hub_items, "hub_items.manage_hub_items_v2025_r0": manage_items,
}
