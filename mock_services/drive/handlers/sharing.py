"""permissions.*: who a file is shared with. Roles reader, commenter, writer and owner (moving
ownership needs `transferOwnership`, and the old owner stays a writer), to people by email or to
`anyone` with the link; the owner's permission is read from the file, never stored twice."""

from __future__ import annotations

from mock_services.drive import access, tree
from mock_services.drive.resources import defaulted, owner_permission, permission_json, permissions_of, stamp
from mock_services.drive.handlers.paging import page
from mock_services import clock
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row

ROLES = ("owner", "organizer", "fileOrganizer", "writer", "commenter", "reader")
TYPES = ("user", "group", "domain", "anyone")


def _shareable(call: Call) -> Row:
    """The file, where the user may share it (its writers and owner may)."""
    return access.file(call, call.params["fileId"], "writer")


def _found(call: Call, row: Row) -> Row:
    wanted = call.params["permissionId"]
    found = next((p for p in permissions_of(access.view(call), row) if p["id"] == wanted), None)
    if found is None:
        raise RestError(404, "notFound", f"Permission not found: {wanted}.")
    return found


def _answer(call: Call, permission: Row) -> dict:
    return defaulted(call, permission_json(access.view(call), permission), "Permission")


def _transfer(call: Call, row: Row, new_owner: Row) -> Row:
    """The new owner owns the file; the one before keeps writing (Drive's rule)."""
    if row.get("owner_id") != call.user:
        raise RestError(403, "insufficientFilePermissions", "Only the owner can transfer ownership of this file.")
    if not call.arg("transferOwnership"):
        raise RestError(403, "consentMessageRequired",
                        "The transferOwnership parameter must be enabled when the permission role is 'owner'.")
    before = access.view(call).users.get(call.user, {})
    for stale in call.state.rows("drive_permissions", file_id=row["id"], id=new_owner["id"]):
        call.state.delete("drive_permissions", stale)
    call.state.insert("drive_permissions", {"file_id": row["id"], "id": call.user, "type": "user", "role": "writer",
                                            "email": before.get("email"), "created_time": stamp(),
                                            "granted_by": new_owner["id"]})
    row["owner_id"] = new_owner["id"]
    tree.save(call, row)
    return owner_permission(access.view(call), row) or {}


def create(call: Call) -> dict:
    row = _shareable(call)
    body = call.body if isinstance(call.body, dict) else {}
    role, kind = body.get("role"), body.get("type")
    if role not in ROLES:
        raise RestError(400, "invalid", "The provided role is invalid." if role else "Required: role")
    if kind not in TYPES:
        raise RestError(400, "invalid", "The provided permission type is invalid." if kind else "Required: type")
    seen = access.view(call)
    permission: Row = {"file_id": row["id"], "type": kind, "role": role, "created_time": stamp(), "granted_by": call.user}
    if kind in ("user", "group"):
        email = str(body.get("emailAddress") or "").strip()
        if "@" not in email:
            raise RestError(400, "invalid", "The permission emailAddress field is required and must be an email address.")
        person = seen.user_by_email(email)
        if person is None and call.arg("sendNotificationEmail") is False:
            raise RestError(400, "invalidSharingRequest",
                            f"Bad Request. User message: \"You are trying to invite {email}. Since there is no Google "
                            "account associated with this email address, you must check the 'Notify people' box to "
                            "invite this recipient.\"")
        if role == "owner":
            if person is None or kind != "user":
                raise RestError(400, "invalidOwnershipTransfer", "Ownership can only move to a user of this domain.")
            return _answer(call, _transfer(call, row, person))
        permission.update({"id": person["id"] if person else clock.choice("0123456789", 20),
                           "email": person["email"] if person else email.lower()})
    elif kind == "domain":
        if not body.get("domain") or role == "owner":
            raise RestError(400, "invalid", "A domain permission needs a domain, and cannot own a file.")
        permission.update({"id": clock.choice("0123456789", 20), "domain": str(body["domain"]).lower(),
                           "allow_file_discovery": bool(body.get("allowFileDiscovery"))})
    else:
        if role == "owner":
            raise RestError(403, "forbidden", "An anyone permission cannot own a file.")
        discoverable = bool(body.get("allowFileDiscovery"))
        permission.update({"id": "anyone" if discoverable else "anyoneWithLink", "allow_file_discovery": discoverable})
    if body.get("expirationTime"):
        permission["expiration_time"] = str(body["expirationTime"])
    if permission["id"] == row.get("owner_id"):
        raise RestError(400, "invalidSharingRequest", "The owner already has access to this file.")
    existing = call.state.first("drive_permissions", file_id=row["id"], id=permission["id"])
    if existing:
        existing.update(role=role, **({"expiration_time": permission["expiration_time"]}
                                      if "expiration_time" in permission else {}))
        call.state.update("drive_permissions", existing)
        permission = existing
    else:
        call.state.insert("drive_permissions", permission)
    tree.save(call, row)
    return _answer(call, permission)


def list_permissions(call: Call) -> dict:
    row = _shareable(call)
    shown, following = page(call, permissions_of(access.view(call), row), row["id"], default_size=100, largest=100)
    answer = {"kind": "drive#permissionList", "permissions": [permission_json(access.view(call), p) for p in shown]}
    if following:
        answer["nextPageToken"] = following
    return defaulted(call, answer, "PermissionList")


def get(call: Call) -> dict:
    row = access.file(call, call.params["fileId"])
    return _answer(call, _found(call, row))


def update(call: Call) -> dict:
    row = _shareable(call)
    permission = _found(call, row)
    body = call.body if isinstance(call.body, dict) else {}
    role = body.get("role", permission["role"])
    if role not in ROLES:
        raise RestError(400, "invalid", "The provided role is invalid.")
    if permission["role"] == "owner" and role != "owner":
        raise RestError(403, "cannotModifyOwner", "The owner's role cannot change; transfer ownership instead.")
    if role == "owner" and permission["role"] != "owner":
        person = access.view(call).users.get(permission["id"])
        if person is None:
            raise RestError(400, "invalidOwnershipTransfer", "Ownership can only move to a user of this domain.")
        return _answer(call, _transfer(call, row, person))
    permission["role"] = role
    if "expirationTime" in body:
        permission["expiration_time"] = body["expirationTime"]
    if call.arg("removeExpiration"):
        permission.pop("expiration_time", None)
    call.state.update("drive_permissions", permission)
    tree.save(call, row)
    return _answer(call, permission)


def delete(call: Call) -> None:
    row = _shareable(call)
    permission = _found(call, row)
    if permission["role"] == "owner":
        raise RestError(403, "cannotRemoveOwner", "The owner of a file cannot be removed.")
    call.state.delete("drive_permissions", permission)
    tree.save(call, row)


HANDLERS = {"permissions.create": create, "permissions.list": list_permissions, "permissions.get": get,
            "permissions.update": update, "permissions.delete": delete}
