"""Users (`me`, one, the enterprise's list; admins create and change them), groups and their
memberships."""

from __future__ import annotations

from mock_services.box import errors
from mock_services.box.handlers.paging import offset_page
from mock_services.box.resources import existing, fields_asked, new_id, now, select, user_mini
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row

USER_STANDARD = ("type", "id", "name", "login", "created_at", "modified_at", "language", "timezone", "space_amount",
                 "space_used", "max_upload_size", "status", "job_title", "phone", "address", "avatar_url",
                 "notification_email")
USER_EDITABLE = ("name", "login", "role", "language", "job_title", "phone", "address", "timezone", "status",
                 "space_amount", "is_sync_enabled", "notification_email", "tracking_codes", "external_app_user_id")
GROUP_EDITABLE = ("name", "description", "provenance", "external_sync_identifier", "invitability_level",
                  "member_viewability_level")


def _user(call: Call, row: Row) -> dict:
    full = {"type": "user", "id": row["id"], "name": row.get("name", ""), "login": row.get("login", ""),
            "created_at": row.get("created_at"), "modified_at": row.get("modified_at"),
            "language": row.get("language", "en"), "timezone": row.get("timezone", "America/Los_Angeles"),
            "space_amount": row.get("space_amount", 10_737_418_240), "space_used": row.get("space_used", 0),
            "max_upload_size": 5_368_709_120, "status": row.get("status", "active"),
            "job_title": row.get("job_title", ""), "phone": row.get("phone", ""), "address": row.get("address", ""),
            "avatar_url": f"https://app.box.com/api/avatar/large/{row['id']}", "notification_email": None,
            "role": row.get("role", "user"), "enterprise": {"type": "enterprise", "id": "1", "name": "detour"},
            "is_sync_enabled": row.get("is_sync_enabled", True), "is_external_collab_restricted": False,
            "tracking_codes": row.get("tracking_codes", []), "can_see_managed_users": True,
            "is_exempt_from_device_limits": False, "is_exempt_from_login_verification": False,
            "is_platform_access_only": False, "my_tags": [], "hostname": "https://app.box.com/",
            "external_app_user_id": row.get("external_app_user_id")}
    return select(full, "user", fields_asked(call), USER_STANDARD)


def _admin(call: Call) -> None:
    me = call.state.first("box_users", id=call.user) or {}
    if me.get("role") not in ("admin", "coadmin"):
        raise errors.forbidden()


def _user_row(call: Call) -> Row:
    row = existing(call, "box_users", call.params["user_id"], "user")
    return row


def me(call: Call) -> dict:
    return _user(call, call.state.first("box_users", id=call.user) or {"id": call.user})


def get_user(call: Call) -> dict:
    return _user(call, _user_row(call))


def list_users(call: Call) -> dict:
    rows = call.state.rows("box_users")
    term = (call.arg("filter_term") or "").lower()
    rows = [r for r in rows if term in r.get("name", "").lower() or term in r.get("login", "").lower()]
    return offset_page(call, [_user(call, r) for r in rows])


def create_user(call: Call) -> dict:
    _admin(call)
    body = call.body or {}
    if not isinstance(body.get("name"), str) or not body["name"].strip():
        raise errors.bad_request("name is required", name="name", reason="missing_parameter")
    if body.get("login") and call.state.first("box_users", login=body["login"]):
        raise RestError(409, "user_login_already_used", "User with the specified login already exists")
    when = now()
    row = {"id": new_id(), "type": "user", "created_at": when, "modified_at": when, "status": "active", "role": "user",
           **{k: body[k] for k in USER_EDITABLE if k in body}}
    call.state.insert("box_users", row)
    call.status = 201
    return _user(call, row)


def update_user(call: Call) -> dict:
    row = _user_row(call)
    if row["id"] != call.user:
        _admin(call)
    row.update({k: v for k, v in (call.body or {}).items() if k in USER_EDITABLE}, modified_at=now())
    call.state.update("box_users", row)
    return _user(call, row)


def delete_user(call: Call) -> None:
    _admin(call)
    row = _user_row(call)
    if call.state.first("box_files", owned_by_id=row["id"]) and not call.arg("force"):
        raise RestError(400, "user_delete_items_still_owned", "The user still owns files or folders")
    call.state.delete("box_users", row)


def _group(row: Row) -> dict:
    return {"type": "group", "id": row["id"], "name": row.get("name", ""), "group_type": "managed_group",
            "created_at": row.get("created_at"), "modified_at": row.get("modified_at"),
            "description": row.get("description", ""), "provenance": row.get("provenance", ""),
            "external_sync_identifier": row.get("external_sync_identifier", ""),
            "invitability_level": row.get("invitability_level", "admins_only"),
            "member_viewability_level": row.get("member_viewability_level", "admins_only")}


def _group_row(call: Call, group_id: str) -> Row:
    row = existing(call, "box_groups", group_id, "group")
    return row


def create_group(call: Call) -> dict:
    _admin(call)
    body = call.body or {}
    if not isinstance(body.get("name"), str) or not body["name"].strip():
        raise errors.bad_request("name is required", name="name", reason="missing_parameter")
    if call.state.first("box_groups", name=body["name"]):
        raise RestError(409, "conflict", "A group with the same name already exists")
    when = now()
    row = {"id": new_id(), "created_at": when, "modified_at": when, **{k: body[k] for k in GROUP_EDITABLE if k in body}}
    call.state.insert("box_groups", row)
    call.status = 201
    return _group(row)


def get_group(call: Call) -> dict:
    return _group(_group_row(call, call.params["group_id"]))


def list_groups(call: Call) -> dict:
    term = (call.arg("filter_term") or "").lower()
    return offset_page(call, [_group(r) for r in call.state.rows("box_groups") if term in r.get("name", "").lower()])


def update_group(call: Call) -> dict:
    _admin(call)
    row = _group_row(call, call.params["group_id"])
    row.update({k: v for k, v in (call.body or {}).items() if k in GROUP_EDITABLE}, modified_at=now())
    call.state.update("box_groups", row)
    return _group(row)


def delete_group(call: Call) -> None:
    _admin(call)
    row = _group_row(call, call.params["group_id"])
    for membership in call.state.rows("box_group_memberships", group_id=row["id"]):
        call.state.delete("box_group_memberships", membership)
    call.state.delete("box_groups", row)


def _membership(call: Call, row: Row) -> dict:
    group = call.state.first("box_groups", id=row["group_id"]) or {"id": row["group_id"]}
    return {"type": "group_membership", "id": row["id"], "user": user_mini(call, row["user_id"]),
            "group": {"type": "group", "id": group["id"], "name": group.get("name", ""), "group_type": "managed_group"},
            "role": row.get("role", "member"), "created_at": row.get("created_at"), "modified_at": row.get("modified_at")}


def create_membership(call: Call) -> dict:
    _admin(call)
    body = call.body or {}
    group = _group_row(call, str((body.get("group") or {}).get("id", "")))
    user = existing(call, "box_users", str((body.get("user") or {}).get("id", "")), "user")
    when = now()
    row = {"id": new_id(), "group_id": group["id"], "user_id": user["id"], "role": body.get("role", "member"),
           "created_at": when, "modified_at": when}
    call.state.insert("box_group_memberships", row)
    call.status = 201
    return _membership(call, row)


def _membership_row(call: Call) -> Row:
    row = existing(call, "box_group_memberships", call.params["group_membership_id"], "group_membership")
    return row


def get_membership(call: Call) -> dict:
    return _membership(call, _membership_row(call))


def update_membership(call: Call) -> dict:
    _admin(call)
    row = _membership_row(call)
    if "role" in (call.body or {}):
        row.update(role=call.body["role"], modified_at=now())
    call.state.update("box_group_memberships", row)
    return _membership(call, row)


def delete_membership(call: Call) -> None:
    _admin(call)
    call.state.delete("box_group_memberships", _membership_row(call))


def group_memberships(call: Call) -> dict:
    group = _group_row(call, call.params["group_id"])
    found = call.state.rows("box_group_memberships", group_id=group["id"])
    return offset_page(call, [_membership(call, r) for r in found])


def user_memberships(call: Call) -> dict:
    user = _user_row(call)
    return offset_page(call, [_membership(call, r) for r in call.state.rows("box_group_memberships", user_id=user["id"])])


HANDLERS = {
    "users.get_user_me": me, "users.get_user_by_id": get_user, "users.get_users": list_users,
    "users.create_user": create_user, "users.update_user_by_id": update_user, "users.delete_user_by_id": delete_user,
    "groups.create_group": create_group, "groups.get_group_by_id": get_group, "groups.get_groups": list_groups,
    "groups.update_group_by_id": update_group, "groups.delete_group_by_id": delete_group,
    "memberships.create_group_membership": create_membership,
    "memberships.get_group_membership_by_id": get_membership,
    "memberships.update_group_membership_by_id": update_membership,
    "memberships.delete_group_membership_by_id": delete_membership,
    "memberships.get_group_memberships": group_memberships, "memberships.get_user_memberships": user_memberships,
}
