"""What files, folders and web links share: reading one for the caller, and the changes
`PUT` makes to any of them (rename, move, description, tags, favorites, shared links)."""

from __future__ import annotations

from typing import Any

from mock_services import clock
from mock_services.box import access, errors, tree
from mock_services.box.access import EDIT, SEE, SHARE, TABLES
from mock_services.box.resources import shown
from mock_services.rest.router import Call
from mock_services.store import Row

ACCESS_LEVELS = ("open", "company", "collaborators")
FAVORITES = "favorites"


def favorites_id(user_id: str) -> str:
    """Each user's one collection, Favorites, with an id of its own derived from the user's."""
    return str(int(user_id) % 1_000_000_000 + 1) if user_id.isdigit() else "1"


def get(call: Call, kind: str, item_id: str, needs: str = SEE) -> tuple[Row, str | None]:
    row = access.item(call, kind, item_id, needs)
    return row, access.role_on(call, kind, row)


def answer(call: Call, row: Row, **extra: Any) -> dict:
    return shown(call, row, access.role_on(call, row["type"], row), **extra)


def shared_link(row: Row, given: Any) -> dict | None:
    """Box's shared link object from what a `PUT` asked for (`{}` takes the defaults)."""
    if given is None:
        return None
    if not isinstance(given, dict):
        raise errors.bad_request("shared_link must be an object", name="shared_link", reason="invalid_parameter")
    level = given.get("access", (row.get("shared_link") or {}).get("access", "open"))
    if level not in ACCESS_LEVELS:
        raise errors.bad_request(f"Invalid shared link access: {level}", name="access", reason="invalid_parameter")
    previous = row.get("shared_link") or {}
    token = previous.get("url", "").rpartition("/")[2] or clock.token_hex(16)
    asked = given.get("permissions") or {}
    allowed = {"can_download": asked.get("can_download", True), "can_preview": True,
               "can_edit": bool(asked.get("can_edit", False)) and row["type"] == "file"}
    link = {"url": f"https://app.box.com/s/{token}", "download_url": None, "vanity_url": None,
            "vanity_name": given.get("vanity_name"), "access": level, "effective_access": level,
            "effective_permission": "can_download" if allowed["can_download"] else "can_preview",
            "unshared_at": given.get("unshared_at"), "is_password_enabled": bool(given.get("password")),
            "permissions": allowed, "download_count": 0, "preview_count": 0}
    if row["type"] == "file":
        extension = row.get("extension") or ""
        link["download_url"] = f"https://app.box.com/shared/static/{token}{'.' + extension if extension else ''}"
    if given.get("password"):
        link["password"] = given["password"]  # kept to check a BoxApi header; never shown
    return link


def _move(call: Call, row: Row, parent: Any) -> None:
    if not isinstance(parent, dict) or not parent.get("id"):
        raise errors.bad_request("parent must be an object with an id", name="parent", reason="invalid_parameter")
    target = access.item(call, "folder", str(parent["id"]), access.UPLOAD)
    if row["type"] == "folder":
        tree.ensure_not_inside(call, row["id"], target["id"])
    row["parent_id"] = target["id"]


def update(call: Call, row: Row, body: dict) -> Row:
    """Apply a `PUT` body to a file, folder or web link the caller may see; each part checks
    the right it needs (favorites are the caller's own)."""
    role = access.role_on(call, row["type"], row)
    grants = access.GRANTS.get(role or "", set())
    tree.check_etag(call, row)
    changes = set(body) - {"collections"}
    if changes - {"shared_link"} and EDIT not in grants:
        raise errors.forbidden()
    if "shared_link" in body and SHARE not in grants:
        raise errors.forbidden()
    if "name" in body:
        row["name"] = tree.check_name(body["name"])
    if "parent" in body:
        _move(call, row, body["parent"])
    if "name" in body or "parent" in body:
        tree.ensure_free(call, row["parent_id"], row["name"], row["type"], but=row["id"])
    for key in ("description", "tags", "sync_state", "folder_upload_email", "can_non_owners_invite",
                "can_non_owners_view_collaborators", "is_collaboration_restricted_to_enterprise", "url",
                "disposition_at", "lock"):
        if key in body:
            row[key] = body[key]
    if "shared_link" in body:
        row["shared_link"] = shared_link(row, body["shared_link"])
    if "collections" in body:
        row["collections"] = [str(c.get("id")) for c in body["collections"] or [] if isinstance(c, dict)]
    call.state.update(TABLES[row["type"]], tree.touched(call, row, "ITEM_MOVE" if "parent" in body else "ITEM_RENAME"
                                                        if "name" in body else None))
    return row
