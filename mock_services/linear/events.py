"""What the Linear replica's state changes emit: Linear's data-change webhooks.

A webhook (`webhookCreate`: a URL, its `resourceTypes`, a team or all public teams, a secret
Linear makes where none is given) gets each create, update and removal of an entity of those
types POSTed to its URL (into the sandbox: mock_services/events/webhooks.py) as Linear sends
them: `{action, type, data, actor, createdAt, url, organizationId, webhookId,
webhookTimestamp}`, with `Linear-Delivery`, `Linear-Event` and `Linear-Signature` (the hex
HMAC-SHA256 of the body under the webhook's secret, which @linear/sdk's LinearWebhookClient
checks, with the timestamp, stamped at each attempt). Linear soft-deletes, so an entity archived
or trashed is a `remove`. A delivery not answered 200 is sent again after a minute, an hour and
six hours.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from mock_services import clock
from mock_services.events import webhooks
from mock_services.events.rules import EventRule, Events, Row
from mock_services.linear.model import now_iso
from mock_services.store import EnvState

WEBHOOKS = "webhooks"
RETRIES = (60.0, 3600.0, 21600.0)
SIGNER = "mock_services.linear.events:signed"


def queue(webhook_id: str) -> str:
    return f"linear.webhook:{webhook_id}"


def actor(state: EnvState, row: Row) -> Row:
    """Who made the change: the row's author where it names one, else the environment's user."""
    user_id = row.get("userId") or row.get("creatorId") or state.info.acting_user
    user = state.first("users", id=user_id) or {"id": user_id}
    return {"id": user["id"], "type": "user", "name": user.get("name"), "email": user.get("email")}


def removed(row: Row) -> bool:
    return bool(row.get("archivedAt") or row.get("trashed"))


# (type, table, whose team the entity is in) for each entity a webhook's resourceTypes may name
ENTITIES = (("Issue", "issues", lambda s, r: r.get("teamId")),
            ("Comment", "comments", lambda s, r: (s.first("issues", id=r.get("issueId")) or {}).get("teamId")),
            ("IssueLabel", "issue_labels", lambda s, r: r.get("teamId")),
            ("Project", "projects", lambda s, r: None),
            ("Cycle", "cycles", lambda s, r: r.get("teamId")),
            ("Reaction", "reactions", lambda s, r: None))


def fields(action: str, team: Any) -> dict[str, Any]:
    return {"action": lambda s, r: action, "createdAt": lambda s, r: now_iso(), "data": lambda s, r: r,
            "url": "url", "actor": actor, "teamId": team}


def rules_of(entity: str, table: str, team: Any) -> tuple[EventRule, ...]:
    return (EventRule(table, "insert", entity, fields("create", team)),
            EventRule(table, "update", entity, fields("update", team), when=lambda row: not removed(row)),
            EventRule(table, "update", entity, fields("remove", team), when=removed, changed="archivedAt"),
            EventRule(table, "delete", entity, fields("remove", team)))


RULES = tuple(rule for entity, table, team in ENTITIES for rule in rules_of(entity, table, team))


def takes(webhook: Row, event: Row) -> bool:
    """Enabled, for this type, and for the entity's team (or every public team's)."""
    if not webhook.get("enabled", True) or webhook.get("archivedAt") or event["type"] not in webhook.get(
            "resourceTypes", ()):
        return False
    return bool(webhook.get("allPublicTeams")) or not webhook.get("teamId") or \
        webhook.get("teamId") == event.get("teamId")


def deliver(state: EnvState, rule: EventRule, event: Row) -> None:
    organization = (state.first("organizations") or {}).get("id")
    for webhook in state.rows(WEBHOOKS):
        if takes(webhook, event):
            payload = {k: v for k, v in event.items() if k != "teamId"}
            payload |= {"organizationId": organization, "webhookId": webhook["id"]}
            webhooks.enqueue(state, queue(webhook["id"]), str(clock.uuid4()), webhook["url"],
                             f"{rule.event} {event['action']}", payload, SIGNER, webhook["id"])


def webhook_made(state: EnvState, webhook_id: str) -> None:
    """Its queue is sent over HTTP from now on (and the environment watched: a timeline's steps
    fire while its sandbox runs)."""
    webhooks.register(state, queue(webhook_id), RETRIES)


def listening(state: EnvState) -> bool:
    return state.first(WEBHOOKS) is not None


def signed(state: EnvState, webhook_id: str, payload: dict[str, Any], attempt: int) -> webhooks.Signed:
    """Stamped with the time of this attempt, and signed under the webhook's secret."""
    body = webhooks.body_of({**payload, "webhookTimestamp": int(clock.now() * 1000)})
    secret = (state.first(WEBHOOKS, id=webhook_id) or {}).get("secret") or ""
    return webhooks.Signed(body, {
        "Content-Type": "application/json; charset=utf-8", "User-Agent": "Linear-Webhook",
        "Linear-Delivery": str(clock.uuid4()), "Linear-Event": payload["type"],
        "Linear-Signature": hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()})


EVENTS = Events(rules=RULES, deliver=deliver, listening=listening, actor=lambda event: event["actor"]["id"])
