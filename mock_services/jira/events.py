"""What the Jira replica's state changes emit: Jira's webhooks, POSTed to the URLs apps register.

An app registers webhooks with `POST /rest/api/3/webhook` (a URL and a list of `{jqlFilter,
events}`: jira:issue_created, jira:issue_updated, jira:issue_deleted, comment_created,
comment_updated, comment_deleted), lists them with GET and removes them with DELETE (their
`webhookIds`). Each change of an issue or comment whose issue the webhook's JQL filter holds for
(the JQL the replica's search speaks: `project = KEY`, `issuetype`, `status`, `assignee`...) is
POSTed into the sandbox (mock_services/events/webhooks.py) in Jira's shape: `{timestamp,
webhookEvent, issue_event_type_name, user, issue, changelog (an update's items), comment,
matchedWebhookIds}`, with `X-Atlassian-Webhook-Identifier` (the same on each retry) and
`X-Atlassian-Webhook-Retry` on a retry. Jira retries a delivery not answered 2xx up to five
times; the replica does so after 1, 5, 15, 30 and 60 minutes of the environment's clock (Atlassian
documents the count, not the times). Dynamic webhooks carry no signature (Atlassian signs only
the admin's webhooks that name a secret).
"""

from __future__ import annotations

from typing import Any

from mock_services import clock
from mock_services.events import webhooks
from mock_services.events.rules import EventRule, Events, Row
from mock_services.jira import jql
from mock_services.rest.errors import RestError
from mock_services.store import EnvState

WEBHOOKS = "jira_webhook"
RETRIES = (60.0, 300.0, 900.0, 1800.0, 3600.0)
SIGNER = "mock_services.jira.events:signed"
# Fields whose changelog item names the related object's id and name (`from`/`fromString`)
NAMED = {"status": "name", "assignee": "displayName", "reporter": "displayName", "priority": "name",
         "issuetype": "name", "project": "key"}
ACCOUNT = ("accountId", "displayName", "emailAddress", "active", "timeZone", "accountType", "self")


def queue(webhook_id: Any) -> str:
    return f"jira.webhook:{webhook_id}"


def _user(state: EnvState, user: Row | None) -> Row | None:
    """A user as a webhook names them (their account, no internal id)."""
    if not user:
        row = state.first("jira_users", id=state.info.acting_user)
        user = row or {}
    return {k: user[k] for k in ACCOUNT if k in user} or None


def _issue_of(state: EnvState, comment: Row) -> Row:
    wanted = str(comment.get("issueIdOrKey"))
    return state.first("jira_issue", id=wanted) or state.first("jira_issue", key=wanted) or {}


def _issue(state: EnvState, row: Row) -> Row:
    return {k: row[k] for k in ("id", "self", "key", "fields") if k in row}


def _text(field: str, value: Any) -> tuple[Any, Any]:
    """(id, display text) of a field's value, as a changelog item names them."""
    if isinstance(value, dict):
        return value.get("accountId") or value.get("id"), value.get(NAMED.get(field, "name"))
    if isinstance(value, list):
        return None, " ".join(str(v) for v in value)
    return None, value


def changelog(row: Row, before: Row) -> Row:
    """The fields an update changed, each from its old to its new value."""
    now, was = row.get("fields") or {}, before.get("fields") or {}
    items = []
    for field in sorted(set(now) | set(was)):
        if field != "updated" and now.get(field) != was.get(field):
            (old_id, old), (new_id, new) = _text(field, was.get(field)), _text(field, now.get(field))
            items.append({"field": field, "fieldtype": "jira", "fieldId": field, "from": old_id, "fromString": old,
                          "to": new_id, "toString": new})
    return {"id": str(10**5 + int.from_bytes(clock.draw(3), "big") % 9 * 10**5), "items": items}


def _common(name: str) -> dict[str, Any]:
    return {"timestamp": lambda s, r: int(clock.now() * 1000), "issue_event_type_name": lambda s, r: name}


ISSUE = {**_common("issue_created"), "user": lambda s, r: _user(s, (r.get("fields") or {}).get("reporter")),
         "issue": _issue}
UPDATED = {**_common("issue_generic"), "user": lambda s, r: _user(s, None), "issue": _issue}
COMMENT = {"timestamp": lambda s, r: int(clock.now() * 1000), "comment": lambda s, r: r,
           "issue": lambda s, r: _issue(s, _issue_of(s, r)), "user": lambda s, r: _user(s, r.get("updateAuthor"))}

RULES = (
    EventRule("jira_issue", "insert", "jira:issue_created", ISSUE),
    EventRule("jira_issue", "update", "jira:issue_updated", UPDATED, compared={"changelog": changelog}),
    EventRule("jira_issue", "delete", "jira:issue_deleted", {**ISSUE, **_common("issue_deleted")}),
    EventRule("jira_issue_comment", "insert", "comment_created", COMMENT),
    EventRule("jira_issue_comment", "update", "comment_updated", COMMENT),
    EventRule("jira_issue_comment", "delete", "comment_deleted", COMMENT),
)


def takes(webhook: Row, event: Row) -> bool:
    """The webhook names the event, and its JQL filter holds for the event's issue."""
    if event["type"] not in webhook.get("events", ()):
        return False
    issue = event.get("issue") or {}
    holds, _ = jql.matcher(webhook.get("jqlFilter") or "", "", jql.values_of)
    return holds(issue)


def deliver(state: EnvState, rule: EventRule, event: Row) -> None:
    """One POST per URL, naming each of its webhooks that matched (`matchedWebhookIds`)."""
    by_url: dict[str, list[Any]] = {}
    for webhook in state.rows(WEBHOOKS):
        if takes(webhook, event):
            by_url.setdefault(webhook["url"], []).append(webhook["id"])
    payload = {"webhookEvent": rule.event, **{k: v for k, v in event.items() if k != "type"}}
    for url, ids in by_url.items():
        webhooks.enqueue(state, queue(ids[0]), str(clock.uuid4()), url, rule.event,
                         {**payload, "matchedWebhookIds": ids}, SIGNER, str(ids[0]))


def listening(state: EnvState) -> bool:
    return state.first(WEBHOOKS) is not None


def register(state: EnvState, url: str, details: list[Row]) -> list[Row]:
    """Each webhook of a registration stored (or the errors that refuse it, as Jira answers them
    per webhook), its queue sent over HTTP from now on."""
    results, ids = [], [int(w["id"]) for w in state.rows(WEBHOOKS)]
    for detail in details:
        try:
            jql.parse(str(detail.get("jqlFilter") or ""))
        except RestError as e:
            results.append({"errors": [e.message]})
            continue
        webhook_id = max(ids or [9999]) + 1
        ids.append(webhook_id)
        expires = clock.utcnow().timestamp() + 30 * 86400  # Jira's dynamic webhooks live 30 days
        state.insert(WEBHOOKS, {"id": webhook_id, "url": url, "jqlFilter": detail.get("jqlFilter"),
                                "events": list(detail.get("events") or ()), "expirationDate": int(expires * 1000),
                                **{k: detail[k] for k in ("fieldIdsFilter", "issuePropertyKeysFilter") if k in detail}})
        webhooks.register(state, queue(webhook_id), RETRIES)
        results.append({"createdWebhookId": webhook_id})
    return results


def signed(state: EnvState, key: str, payload: dict[str, Any], attempt: int) -> webhooks.Signed:
    """Jira's headers: the delivery's identifier, and which retry this is."""
    headers = {"Content-Type": "application/json; charset=UTF-8", "User-Agent": "Atlassian Webhook HTTP Client",
               "X-Atlassian-Webhook-Identifier": f"{key}-{payload['timestamp']}"}
    if attempt:
        headers["X-Atlassian-Webhook-Retry"] = str(attempt)
    return webhooks.Signed(webhooks.body_of(payload), headers)


EVENTS = Events(rules=RULES, deliver=deliver, listening=listening,
                actor=lambda event: (event.get("user") or {}).get("accountId"))
