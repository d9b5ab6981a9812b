"""What the Box replica's state changes emit: Box's V2 webhooks, POSTed to the webhook's address.

A webhook (POST /2.0/webhooks: a file or folder target, an `https` address, its triggers) gets
FILE.UPLOADED for a file made in its folder (or under it), COMMENT.CREATED for a comment on its
file (or a file under its folder), as Box sends them: `{type: webhook_event, id, created_at,
trigger, webhook, created_by, source}` with BOX-DELIVERY-ID, BOX-DELIVERY-TIMESTAMP and
BOX-SIGNATURE-PRIMARY/-SECONDARY (base64 HMAC-SHA256 of the body then the timestamp under the
app's two signature keys, which the sandbox reads as BOX_WEBHOOK_PRIMARY_KEY and
BOX_WEBHOOK_SECONDARY_KEY), which box_sdk_gen's `WebhooksManager.validate_message` checks.

Box asks for an `https` address; a listener in the sandbox is plain HTTP on its loopback. The
delivery is Box's side of the TLS: detour posts to `https://localhost:PORT/...` as plain HTTP
to that port inside the sandbox, as a tunnel (ngrok, cloudflared) hands Box's https to a local
listener (proxy_addons/event_delivery.py). Box retries a delivery not answered 2xx; the replica
does so after 1, 5 and 30 minutes of the environment's clock (Box gives no times).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any

from mock_services import clock
from mock_services.box.access import ROOT, signature_keys
from mock_services.events import webhooks
from mock_services.events.rules import EventRule, Events, Row
from mock_services.store import EnvState

WEBHOOKS = "box_webhooks"
RETRIES = (60.0, 300.0, 1800.0)
SIGNER = "mock_services.box.events:signed"


def queue(webhook_id: str) -> str:
    return f"box.webhook:{webhook_id}"


def _user(state: EnvState, user_id: Any) -> Row | None:
    row = state.first("box_users", id=str(user_id)) if user_id else None
    return {"type": "user", "id": row["id"], "name": row.get("name", ""), "login": row.get("login", "")} if row \
        else None


def _file(state: EnvState, file_id: Any) -> Row:
    row = state.first("box_files", id=str(file_id)) or {"id": str(file_id)}
    return {"type": "file", "id": row["id"], "name": row.get("name", ""), "sequence_id": row.get("sequence_id"),
            "etag": row.get("etag"), "sha1": row.get("sha_1"), "parent": {"type": "folder", "id": row.get("parent_id")}}


def _comment(state: EnvState, row: Row) -> Row:
    return {"type": "comment", "id": row["id"], "message": row.get("message"), "created_at": row.get("created_at"),
            "created_by": _user(state, row.get("created_by_id")), "item": {"type": "file", "id": row.get("item_id")}}


EVENT = {"created_at": lambda s, r: clock.utcnow().replace(microsecond=0).isoformat()}
RULES = (
    EventRule("box_files", "insert", "FILE.UPLOADED",
              {**EVENT, "created_by": lambda s, r: _user(s, r.get("created_by_id")), "source": lambda s, r: _file(s, r["id"]),
               "file_id": "id"}),
    EventRule("box_comments", "insert", "COMMENT.CREATED",
              {**EVENT, "created_by": lambda s, r: _user(s, r.get("created_by_id")), "source": _comment,
               "file_id": "item_id"}),
)


def _folders_of(state: EnvState, file_id: Any) -> set[str]:
    """The file's folder and every folder above it."""
    found, folder = set(), (state.first("box_files", id=str(file_id)) or {}).get("parent_id")
    while folder is not None and folder not in found:
        found.add(str(folder))
        folder = None if folder == ROOT else (state.first("box_folders", id=str(folder)) or {}).get("parent_id")
    return found


def takes(state: EnvState, webhook: Row, event: Row) -> bool:
    if event["type"] not in webhook.get("triggers", ()):
        return False
    if webhook["target_type"] == "file":
        return webhook["target_id"] == str(event["file_id"])
    return webhook["target_id"] in _folders_of(state, event["file_id"])


def deliver(state: EnvState, rule: EventRule, event: Row) -> None:
    for webhook in state.rows(WEBHOOKS):
        if takes(state, webhook, event):
            payload = {"type": "webhook_event", "id": str(clock.uuid4()), "created_at": event["created_at"],
                       "trigger": rule.event, "webhook": {"id": webhook["id"], "type": "webhook"},
                       "created_by": event.get("created_by"), "source": event["source"]}
            webhooks.enqueue(state, queue(webhook["id"]), payload["id"], webhook["address"], rule.event, payload,
                             SIGNER, webhook["id"])


def listening(state: EnvState) -> bool:
    return state.first(WEBHOOKS) is not None


def webhook_made(state: EnvState, webhook_id: str) -> None:
    webhooks.register(state, queue(webhook_id), RETRIES)


def signed(state: EnvState, webhook_id: str, payload: dict[str, Any], attempt: int) -> webhooks.Signed:
    """Box's headers for this attempt: its time, and the body signed under both keys."""
    body = webhooks.body_of(payload)
    timestamp = clock.utcnow().replace(microsecond=0).isoformat().replace("+00:00", "Z")
    if not timestamp.endswith("Z"):
        timestamp += "Z"
    primary, secondary = (base64.b64encode(hmac.new(key.encode(), body + timestamp.encode(), hashlib.sha256).digest())
                          .decode() for key in signature_keys(state.info.env_id))
    return webhooks.Signed(body, {
        "Content-Type": "application/json; charset=UTF-8", "User-Agent": "Box-WH-Client/0.1",
        "BOX-DELIVERY-ID": payload["id"], "BOX-DELIVERY-TIMESTAMP": timestamp, "BOX-SIGNATURE-VERSION": "1",
        "BOX-SIGNATURE-ALGORITHM": "HmacSHA256", "BOX-SIGNATURE-PRIMARY": primary,
        "BOX-SIGNATURE-SECONDARY": secondary})


EVENTS = Events(rules=RULES, deliver=deliver, listening=listening,
                actor=lambda event: (event.get("created_by") or {}).get("id"))
