"""What the Stripe replica's state changes emit: Stripe's events, POSTed to webhook endpoints.

An endpoint (POST /v1/webhook_endpoints) names a URL and the event types it takes
(`enabled_events`, `*` for all); its signing secret (`whsec_...`) is answered once, at its
creation, as Stripe answers it, and kept in the environment's meta. Each event is an `event`
object (`data.object` the row as the API answers it) POSTed into the sandbox
(mock_services/events/webhooks.py) with `Stripe-Signature: t=...,v1=...`, the HMAC-SHA256 of
`{t}.{body}` under the endpoint's secret, which `stripe.Webhook.construct_event` and
stripe-node's `constructEvent` check. In test mode Stripe retries a delivery not taken three
times over a few hours; the replica does so after 1, 2 and 4 hours of the environment's clock
(Stripe documents the count and the span, not the times).
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from mock_services import clock
from mock_services.events import webhooks
from mock_services.events.rules import EventRule, Events, Row
from mock_services.store import EnvState

ENDPOINTS, SECRETS_KEY = "stripe_webhook_endpoints", "stripe_webhook_secrets"
API_VERSION = "2020-08-27"  # the version of the replica's description
RETRIES = (3600.0, 7200.0, 14400.0)
SIGNER = "mock_services.stripe.events:signed"


def queue(endpoint_id: str) -> str:
    return f"stripe.endpoint:{endpoint_id}"


# An event object's fields around its `type` (Stripe's `event`); `pending_webhooks` is set per delivery.
EVENT = {"id": lambda s, r: "evt_" + clock.token_hex(12), "object": lambda s, r: "event",
         "api_version": lambda s, r: API_VERSION, "created": lambda s, r: int(clock.now()),
         "data": lambda s, r: {"object": r}, "livemode": lambda s, r: False,
         "request": lambda s, r: {"id": None, "idempotency_key": None}}


def lifecycle(table: str, name: str) -> tuple[EventRule, ...]:
    """`NAME.created`, `.updated` and `.deleted` of a resource's rows."""
    return tuple(EventRule(table, change, f"{name}.{done}", EVENT)
                 for change, done in (("insert", "created"), ("update", "updated"), ("delete", "deleted")))


def status(*values: str) -> Any:
    return lambda row: row.get("status") in values


RULES = (
    *lifecycle("stripe_customers", "customer"),
    *lifecycle("stripe_products", "product"),
    *lifecycle("stripe_prices", "price"),
    *lifecycle("stripe_invoices", "invoice"),
    EventRule("stripe_invoices", "update", "invoice.finalized", EVENT, when=status("open"), changed="status"),
    EventRule("stripe_invoices", "update", "invoice.paid", EVENT, when=status("paid"), changed="status"),
    EventRule("stripe_invoices", "update", "invoice.payment_succeeded", EVENT, when=status("paid"), changed="status"),
    EventRule("stripe_invoices", "update", "invoice.voided", EVENT, when=status("void"), changed="status"),
    EventRule("stripe_payment_intents", "insert", "payment_intent.created", EVENT),
    EventRule("stripe_payment_intents", "insert", "payment_intent.succeeded", EVENT, when=status("succeeded")),
    EventRule("stripe_payment_intents", "update", "payment_intent.succeeded", EVENT, when=status("succeeded"),
              changed="status"),
    EventRule("stripe_payment_intents", "update", "payment_intent.amount_capturable_updated", EVENT,
              when=status("requires_capture"), changed="status"),
    EventRule("stripe_payment_intents", "update", "payment_intent.canceled", EVENT, when=status("canceled"),
              changed="status"),
)


def takes(endpoint: Row, event: str) -> bool:
    return endpoint.get("status") == "enabled" and bool({event, "*"} & set(endpoint.get("enabled_events") or ()))


def deliver(state: EnvState, rule: EventRule, event: Row) -> None:
    """To each enabled endpoint that takes the event's type."""
    endpoints = [e for e in state.rows(ENDPOINTS) if takes(e, rule.event)]
    payload = {**event, "pending_webhooks": len(endpoints)}
    for endpoint in endpoints:
        webhooks.enqueue(state, queue(endpoint["id"]), payload["id"], endpoint["url"], rule.event, payload, SIGNER,
                         endpoint["id"])


def listening(state: EnvState) -> bool:
    """An endpoint anywhere in the environment."""
    return state.first(ENDPOINTS) is not None


def endpoint_made(state: EnvState, endpoint_id: str) -> str:
    """A new endpoint: its signing secret (kept, answered once) and its queue sent over HTTP."""
    secret = "whsec_" + clock.token_hex(16)
    state.set_meta(SECRETS_KEY, {**(state.meta(SECRETS_KEY) or {}), endpoint_id: secret})
    webhooks.register(state, queue(endpoint_id), RETRIES)
    return secret


def signed(state: EnvState, endpoint_id: str, payload: dict[str, Any], attempt: int) -> webhooks.Signed:
    """Stripe's headers for this attempt: a fresh timestamp, signed with the endpoint's secret."""
    body = webhooks.body_of(payload)
    timestamp = str(int(clock.now()))
    secret = (state.meta(SECRETS_KEY) or {}).get(endpoint_id, "")
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return webhooks.Signed(body, {"Content-Type": "application/json; charset=utf-8",
                                  "User-Agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
                                  "Stripe-Signature": f"t={timestamp},v1={mac}"})


EVENTS = Events(rules=RULES, deliver=deliver, listening=listening)
