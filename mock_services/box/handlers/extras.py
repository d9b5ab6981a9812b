"""Smaller families an agent reaches for: recent items (from the event stream), folder locks,
watermarks, webhooks (delivered into the sandbox: mock_services/box/events.py) and zip downloads."""

from __future__ import annotations

import io
import secrets
import zipfile
from datetime import timedelta

from mock_services import clock
from mock_services.box import access, contents, errors, tree
from mock_services.box import events as box_events
from mock_services.box.access import DOWNLOAD, EDIT
from mock_services.box.handlers.paging import marker_page
from mock_services.box.handlers.transfer import DOWNLOAD_BASE, DOWNLOAD_KEY
from mock_services.box.resources import existing, folder_mini, mini, new_id, now, user_mini
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row

INTERACTIONS = {"ITEM_UPLOAD": "item_upload", "ITEM_DOWNLOAD": "item_open", "COMMENT_CREATE": "item_comment",
                "ITEM_RENAME": "item_modify", "ITEM_MOVE": "item_modify", "ITEM_CREATE": "item_upload"}
TRIGGERS_KINDS = ("file", "folder")


def recent_items(call: Call) -> dict:
    """What the caller touched last, newest first, once per item."""
    seen, found = set(), []
    for event in reversed(call.state.meta(tree.EVENTS_KEY) or []):
        source = event.get("source") or {}
        key = (source.get("type"), source.get("id"))
        if event.get("created_by_id") != call.user or key in seen or source.get("type") not in access.TABLES:
            continue
        row = call.state.first(access.TABLES[source["type"]], id=source["id"])
        if row and row.get("item_status") == "active":
            seen.add(key)
            found.append({"type": "recent_item", "item": mini(call, row), "interacted_at": event["created_at"],
                          "interaction_type": INTERACTIONS.get(event["event_type"], "item_preview"),
                          "interaction_shared_link": None})
    return marker_page(call, found)


def _lock(call: Call, row: Row) -> dict:
    folder = call.state.first("box_folders", id=row["folder_id"])
    return {"type": "folder_lock", "id": row["id"], "folder": folder_mini(folder) if folder else None,
            "created_by": {"type": "user", "id": row["created_by_id"]}, "created_at": row["created_at"],
            "locked_operations": row["locked_operations"], "lock_type": "freeze"}


def create_lock(call: Call) -> dict:
    body = call.body or {}
    folder = access.item(call, "folder", str((body.get("folder") or {}).get("id", "")), access.OWN)
    operations = body.get("locked_operations") or {}
    if not isinstance(operations, dict) or not {"move", "delete"} <= set(operations):
        raise errors.bad_request("locked_operations needs move and delete", name="locked_operations",
                                 reason="invalid_parameter")
    row = {"id": new_id(), "folder_id": folder["id"], "created_by_id": call.user, "created_at": now(),
           "locked_operations": {"move": bool(operations["move"]), "delete": bool(operations["delete"])}}
    call.state.insert("box_folder_locks", row)
    return _lock(call, row)


def folder_locks(call: Call) -> dict:
    folder = access.item(call, "folder", str(call.arg("folder_id") or ""))
    return {"entries": [_lock(call, r) for r in call.state.rows("box_folder_locks", folder_id=folder["id"])],
            "limit": "1000", "next_marker": None}


def delete_lock(call: Call) -> None:
    row = existing(call, "box_folder_locks", call.params["folder_lock_id"], "folder_lock")
    access.item(call, "folder", row["folder_id"], access.OWN)
    call.state.delete("box_folder_locks", row)


def _watermarked(kind: str, key: str):
    def get(call: Call) -> dict:
        row = access.item(call, kind, call.params[key])
        if not row.get("watermark"):
            raise errors.not_found("watermark")
        return {"watermark": row["watermark"]}

    def put(call: Call) -> dict:
        row = access.item(call, kind, call.params[key], EDIT)
        if ((call.body or {}).get("watermark") or {}).get("imprint") != "default":
            raise errors.bad_request("watermark.imprint must be default", name="watermark", reason="invalid_parameter")
        when = now()
        row["watermark"] = {"created_at": (row.get("watermark") or {}).get("created_at", when), "modified_at": when}
        call.state.update(access.TABLES[kind], row)
        return {"watermark": row["watermark"]}

    def delete(call: Call) -> None:
        row = access.item(call, kind, call.params[key], EDIT)
        if not row.get("watermark"):
            raise errors.not_found("watermark")
        row["watermark"] = None
        call.state.update(access.TABLES[kind], row)
    return get, put, delete


def _webhook(call: Call, row: Row) -> dict:
    return {"type": "webhook", "id": row["id"], "target": {"type": row["target_type"], "id": row["target_id"]},
            "address": row["address"], "triggers": row["triggers"], "created_at": row["created_at"],
            "created_by": user_mini(call, row["created_by_id"])}


def _webhook_fields(call: Call, row: Row, body: dict) -> None:
    target = body.get("target", {"type": row.get("target_type"), "id": row.get("target_id")}) or {}
    if target.get("type") not in TRIGGERS_KINDS:
        raise errors.bad_request("target.type must be file or folder", name="target", reason="invalid_parameter")
    access.item(call, target["type"], str(target.get("id", "")), EDIT)
    address = body.get("address", row.get("address"))
    if not isinstance(address, str) or not address.startswith("https://"):
        raise errors.bad_request("address must be an https URL", name="address", reason="invalid_parameter")
    triggers = body.get("triggers", row.get("triggers"))
    if not isinstance(triggers, list) or not triggers:
        raise errors.bad_request("triggers is required", name="triggers", reason="invalid_parameter")
    row.update(target_type=target["type"], target_id=str(target["id"]), address=address, triggers=triggers)


def create_webhook(call: Call) -> dict:
    row = {"id": new_id(), "created_by_id": call.user, "created_at": now()}
    _webhook_fields(call, row, call.body or {})
    if call.state.first("box_webhooks", target_id=row["target_id"], address=row["address"]):
        raise RestError(409, "conflict", "A webhook for this target and address exists")
    call.state.insert("box_webhooks", row)
    box_events.webhook_made(call.state, row["id"])
    call.status = 201
    return _webhook(call, row)


def _webhook_row(call: Call) -> Row:
    row = call.state.first("box_webhooks", id=call.params["webhook_id"])
    if row is None or row["created_by_id"] != call.user:
        raise errors.not_found("webhook")
    return row


def get_webhook(call: Call) -> dict:
    return _webhook(call, _webhook_row(call))


def update_webhook(call: Call) -> dict:
    row = _webhook_row(call)
    _webhook_fields(call, row, call.body or {})
    call.state.update("box_webhooks", row)
    return _webhook(call, row)


def delete_webhook(call: Call) -> None:
    call.state.delete("box_webhooks", _webhook_row(call))


def webhooks(call: Call) -> dict:
    """The caller's webhooks, each as Box lists them (id, type, target)."""
    found = [{k: v for k, v in _webhook(call, r).items() if k in ("id", "type", "target")}
             for r in call.state.rows("box_webhooks", created_by_id=call.user)]
    return marker_page(call, found)


def _zip_entries(call: Call, kind: str, row: Row, prefix: str, archive: zipfile.ZipFile) -> None:
    if kind == "file":
        archive.writestr(prefix + row["name"], contents.read(call.state, row.get("sha_1")) or b"")
        return
    for child in tree.children(call, row["id"]):
        if child["type"] in ("file", "folder"):
            _zip_entries(call, child["type"], child, f"{prefix}{row['name']}/", archive)


def zip_download(call: Call) -> dict:
    """A zip of the items, kept as the environment's contents and served like a download."""
    body = call.body or {}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for entry in body.get("items") or []:
            kind = (entry or {}).get("type")
            if kind not in ("file", "folder"):
                raise errors.bad_request("items must be files or folders", name="items", reason="invalid_parameter")
            _zip_entries(call, kind, access.item(call, kind, str(entry.get("id", "")), DOWNLOAD), "", archive)
    name = f"{body.get('download_file_name') or 'box-download'}.zip"
    token = secrets.token_urlsafe(24)
    call.state.set_meta(DOWNLOAD_KEY + token, {"sha1": contents.keep(call.state, buffer.getvalue()), "name": name})
    call.status = 202
    expires = (clock.utcnow() + timedelta(minutes=15)).replace(microsecond=0).isoformat()
    return {"download_url": f"{DOWNLOAD_BASE}/{token}/download", "status_url": f"{DOWNLOAD_BASE}/{token}/status",
            "expires_at": expires, "name_conflicts": []}


FILE_WATERMARK, FOLDER_WATERMARK = _watermarked("file", "file_id"), _watermarked("folder", "folder_id")
HANDLERS = {
    "recent_items.get_recent_items": recent_items,
    "folder_locks.create_folder_lock": create_lock, "folder_locks.get_folder_locks": folder_locks,
    "folder_locks.delete_folder_lock_by_id": delete_lock,
    **{f"{kind}_watermarks.{verb}_{kind}_watermark": handler
       for kind, handlers in (("file", FILE_WATERMARK), ("folder", FOLDER_WATERMARK))
       for verb, handler in zip(("get", "update", "delete"), handlers)},
    "webhooks.create_webhook": create_webhook, "webhooks.get_webhook_by_id": get_webhook,
    "webhooks.update_webhook_by_id": update_webhook, "webhooks.delete_webhook_by_id": delete_webhook,
    "webhooks.get_webhooks": webhooks, "zip_downloads.create_zip_download": zip_download,
}
