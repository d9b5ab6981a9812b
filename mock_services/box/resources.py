"""Box's representations of the rows: mini, standard and full, and the `fields` parameter.

Box answers with an item's standard fields; `fields=a,b` answers the mini fields plus those
asked for, from the full representation. One function per kind builds the full one; the
field lists below decide what each representation holds.
"""

from __future__ import annotations

from typing import Any

from mock_services import clock
from mock_services.box import errors
from mock_services.box.access import DOWNLOAD, EDIT, GRANTS, ROOT, SHARE
from mock_services.rest.router import Call
from mock_services.store import Row

MINI = {
    "file": ("type", "id", "file_version", "sequence_id", "etag", "sha1", "name"),
    "folder": ("type", "id", "sequence_id", "etag", "name"),
    "web_link": ("type", "id", "sequence_id", "etag", "name", "url"),
}
STANDARD = {
    "file": MINI["file"] + ("description", "size", "path_collection", "created_at", "modified_at", "trashed_at",
                            "purged_at", "content_created_at", "content_modified_at", "created_by", "modified_by",
                            "owned_by", "shared_link", "parent", "item_status"),
    "folder": MINI["folder"] + ("created_at", "modified_at", "description", "size", "path_collection", "created_by",
                                "modified_by", "trashed_at", "purged_at", "content_created_at",
                                "content_modified_at", "owned_by", "shared_link", "folder_upload_email", "parent",
                                "item_status", "item_collection"),
    "web_link": MINI["web_link"] + ("parent", "description", "path_collection", "created_at", "modified_at",
                                    "trashed_at", "purged_at", "created_by", "modified_by", "owned_by",
                                    "shared_link", "item_status"),
}


def now() -> str:
    return clock.utcnow().replace(microsecond=0).isoformat()


def new_id() -> str:
    """Box ids are decimal strings."""
    return str(10_000_000_000 + int(clock.token_hex(8), 16) % 90_000_000_000)


def fields_asked(call: Call) -> list[str] | None:
    raw = call.params.get("fields")
    if not raw:
        return None
    values = raw if isinstance(raw, list) else [raw]
    return [f.strip() for value in values for f in str(value).split(",") if f.strip()]


def select(full: dict, kind: str, asked: list[str] | None, standard: tuple[str, ...] | None = None) -> dict:
    """The standard fields, or the mini ones plus those asked for."""
    keys = (standard or STANDARD.get(kind, tuple(full))) if asked is None else (*MINI.get(kind, ("type", "id")),
                                                                                 *asked)
    return {k: full[k] for k in dict.fromkeys(keys) if k in full}


def user_mini(call: Call, user_id: str | None) -> dict | None:
    if not user_id:
        return None
    key = ("user", user_id)
    if key not in call.memo:
        row = call.state.first("box_users", id=str(user_id)) or {"id": user_id, "name": "", "login": ""}
        call.memo[key] = {"type": "user", "id": row["id"], "name": row.get("name", ""), "login": row.get("login", "")}
    return call.memo[key]


def existing(call: Call, table: str, row_id: object, kind: str, **also: object) -> Row:
    """The row of that id (and `also`'s columns), else Box's 404 `not_found` naming the kind."""
    row = call.state.first(table, id=row_id, **also)
    if row is None:
        raise errors.not_found(kind)
    return row


def folder_row(call: Call, folder_id: str | None) -> Row | None:
    if folder_id is None:
        return None
    key = ("folder", folder_id)
    if key not in call.memo:
        call.memo[key] = call.state.first("box_folders", id=str(folder_id))
    return call.memo[key]


def folder_mini(row: Row) -> dict:
    root = row["id"] == ROOT
    return {"type": "folder", "id": row["id"], "sequence_id": None if root else row.get("sequence_id"),
            "etag": None if root else row.get("etag"), "name": row.get("name", "")}


def file_mini(call: Call, row: Row) -> dict:
    return {"type": "file", "id": row["id"], "sequence_id": row.get("sequence_id"), "etag": row.get("etag"),
            "sha1": row.get("sha_1"), "name": row.get("name", ""),
            "file_version": {"type": "file_version", "id": current_version_id(call, row), "sha1": row.get("sha_1")}}


def web_link_mini(row: Row) -> dict:
    return {"type": "web_link", "id": row["id"], "sequence_id": row.get("sequence_id"), "etag": row.get("etag"),
            "name": row.get("name", ""), "url": row.get("url", "")}


def current_version_id(call: Call, row: Row) -> str:
    """The file's current version (seeded files name it only in box_file_versions)."""
    if row.get("file_version_id"):
        return str(row["file_version_id"])
    versions = call.state.rows("box_file_versions", file_id=row["id"])
    return str(versions[-1]["id"]) if versions else row["id"]


def path_collection(call: Call, parent_id: str | None) -> dict:
    entries = []
    current = folder_row(call, parent_id)
    while current is not None:
        entries.append(folder_mini(current))
        current = folder_row(call, current.get("parent_id"))
    entries.reverse()
    return {"total_count": len(entries), "entries": entries}


def _common(call: Call, row: Row) -> dict:
    parent = folder_row(call, row.get("parent_id"))
    return {
        "description": row.get("description") or "", "created_at": row.get("created_at"),
        "modified_at": row.get("modified_at"), "trashed_at": row.get("trashed_at"), "purged_at": None,
        "content_created_at": row.get("content_created_at") or row.get("created_at"),
        "content_modified_at": row.get("content_modified_at") or row.get("modified_at"),
        "created_by": user_mini(call, row.get("created_by_id") or row.get("owned_by_id")),
        "modified_by": user_mini(call, row.get("modified_by_id") or row.get("owned_by_id")),
        "owned_by": user_mini(call, row.get("owned_by_id")),
        "shared_link": public_link(row.get("shared_link")), "parent": folder_mini(parent) if parent else None,
        "path_collection": path_collection(call, row.get("parent_id")),
        "item_status": row.get("item_status", "active"), "tags": row.get("tags") or [],
        "collections": [{"type": "collection", "id": c} for c in row.get("collections") or []],
    }


def public_link(link: dict | None) -> dict | None:
    """A shared link as Box shows it: its password is never in an answer."""
    return {k: v for k, v in link.items() if k != "password"} if link else link


def permissions(role: str | None, kind: str) -> dict:
    grants = GRANTS.get(role or "", set())
    found = {"can_delete": EDIT in grants, "can_download": DOWNLOAD in grants, "can_rename": EDIT in grants,
             "can_share": SHARE in grants, "can_set_share_access": SHARE in grants,
             "can_invite_collaborator": SHARE in grants, "can_comment": DOWNLOAD in grants}
    if kind == "file":
        found |= {"can_preview": bool(grants), "can_upload": EDIT in grants, "can_annotate": EDIT in grants,
                  "can_view_annotations_all": True, "can_view_annotations_self": True}
    else:
        found |= {"can_upload": "upload" in grants}
    return found


def file_full(call: Call, row: Row, role: str | None = None) -> dict:
    name = row.get("name", "")
    return {**file_mini(call, row), **_common(call, row), "size": row.get("size", 0),
            "extension": row.get("extension") or (name.rsplit(".", 1)[1] if "." in name else ""),
            "version_number": str(row.get("version_number", "1")),
            "comment_count": len(call.state.rows("box_comments", file_id=row["id"])),  # counted, never stored
            "lock": row.get("lock"), "is_package": False, "has_collaborations": bool(
                call.state.first("box_collaborations", item_id=row["id"], item_type="file")),
            "permissions": permissions(role or "owner", "file"), "is_externally_owned": False,
            "allowed_invitee_roles": ["editor", "viewer", "previewer", "uploader", "previewer uploader",
                                      "viewer uploader", "co-owner"],
            "disposition_at": row.get("disposition_at"), "uploader_display_name": None}


def folder_full(call: Call, row: Row, role: str | None = None, items: dict | None = None) -> dict:
    root = row["id"] == ROOT
    full = {**folder_mini(row), **_common(call, row), "size": row.get("size", 0),
            "folder_upload_email": row.get("folder_upload_email"), "sync_state": row.get("sync_state", "not_synced"),
            "has_collaborations": bool(call.state.first("box_collaborations", item_id=row["id"],
                                                        item_type="folder")),
            "permissions": permissions(role or "owner", "folder"), "is_externally_owned": False,
            "can_non_owners_invite": row.get("can_non_owners_invite", True),
            "can_non_owners_view_collaborators": row.get("can_non_owners_view_collaborators", True),
            "is_collaboration_restricted_to_enterprise": row.get("is_collaboration_restricted_to_enterprise", False),
            "allowed_shared_link_access_levels": ["open", "company", "collaborators"],
            "allowed_invitee_roles": ["editor", "viewer", "previewer", "uploader", "previewer uploader",
                                      "viewer uploader", "co-owner"],
            "is_accessible_via_shared_link": bool(row.get("shared_link"))}
    if root:
        full |= {"created_at": None, "modified_at": None, "content_created_at": None, "content_modified_at": None,
                 "created_by": {"type": "user", "id": "", "name": "", "login": ""}, "parent": None}
    if items is not None:
        full["item_collection"] = items
    return full


def web_link_full(call: Call, row: Row, role: str | None = None) -> dict:
    return {**web_link_mini(row), **_common(call, row)}


def mini(call: Call, row: Row) -> dict:
    kind = row.get("type", "file")
    return file_mini(call, row) if kind == "file" else folder_mini(row) if kind == "folder" else web_link_mini(row)


def full(call: Call, row: Row, role: str | None = None) -> dict:
    kind = row.get("type", "file")
    return {"file": file_full, "folder": folder_full, "web_link": web_link_full}[kind](call, row, role)


def shown(call: Call, row: Row, role: str | None = None, **extra: Any) -> dict:
    """An item as an answer shows it: standard fields, or those the call asks for."""
    kind = row.get("type", "file")
    return select({**full(call, row, role), **extra}, kind, fields_asked(call))
