"""Zendesk's rules that its Support API description does not say, over the generated pack:
every path answers with or without `.json` (zenpy and most clients send it); tickets are numbered
1, 2, 3 per account, their first comment is the `comment` (or `description`) they are created
with, and an update's `ticket.comment` adds one more (never a stored field); a new ticket is
`new`, or `open` once assigned, and a closed one takes no updates; creates and updates answer with
the audit Zendesk writes; search (`type:ticket status<solved assignee:me ...`, search.py), its
count, user search and the ticket count; who acts (Basic auth's `email/token`); and Zendesk's
error shape, `{"error": "RecordNotFound", "description": "Not found"}`, with a 422 RecordInvalid's
`details` per field."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from mock_services import clock
from mock_services.rest.errors import RestError
from mock_services.rest.openapi import styles
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import Call, basic_login
from mock_services.store import EnvState, Row
from mock_services.zendesk import search as query_language
from mock_services.rest.openapi.credentials import issuer

SPEC = json.loads((Path(__file__).parent / "spec" / "openapi.json").read_text())
ROUTES = {o["operationId"]: [path + ".json"] for path, ops in SPEC["paths"].items() for o in ops.values()}
BIG = {"kind": "numeric", "digits": 13, "as": "integer"}  # Zendesk's ids of users, organizations, comments
IDS = {"zendesk_users": BIG, "zendesk_organizations": BIG, "zendesk_tickets_comments": BIG}
OPTIONAL = {"TicketCreateInput": ["comment"]}  # `description` makes the first comment as well
DEFAULTS = {"zendesk_users": {"role": "end-user", "active": True, "verified": False, "suspended": False, "tags": [],
                              "user_fields": {}, "time_zone": "UTC", "locale": "en-US"},
            "zendesk_organizations": {"domain_names": [], "tags": [], "shared_tickets": False,
                                      "shared_comments": False, "organization_fields": {}}}
# Zendesk's names for what went wrong, by the engine's reason.
ERRORS = {"resource_missing": ("RecordNotFound", "Not found"), "notFound": ("InvalidEndpoint", "Not found"),
          "httpMethodNotAllowed": ("InvalidEndpoint", None)}
TICKET_WRITES = {"comment", "description", "requester", "assignee_email", "email_ccs", "followers", "collaborators",
                 "additional_collaborators", "macro_id", "metadata", "safe_update", "updated_stamp",
                 "voice_comment", "via_id", "attribute_value_ids"}


def error_body(error: RestError) -> dict:
    name, description = ERRORS.get(error.reason, (error.reason, None))
    body = {"error": name, "description": description or error.message}
    if error.details and "details" in error.details:
        body["details"] = error.details["details"]
    return body


def record_invalid(field: str, message: str, code: str = "BlankValue") -> RestError:
    return RestError(422, "RecordInvalid", "Record validation errors",
                     details={"details": {field: [{"description": message, "error": code}]}})


def identify(state: EnvState, token: str | None, headers: dict[str, str]) -> Any:
    """Basic auth names its user by email (`agent@example.com/token:…` for an API token, or
    `email:password`); a bearer token acts as the environment's user."""
    login = basic_login(headers)
    found = state.first("zendesk_users", email=login.removesuffix("/token")) if login else None
    return found["id"] if found else state.info.acting_user


def _me(call: Call) -> Row | None:
    return call.state.first("zendesk_users", id=call.user) or \
        (call.state.first("zendesk_users", id=int(call.user)) if str(call.user).isdigit() else None)


def _now() -> str:
    return clock.utcnow().replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _user_by(call: Call, value: Any) -> Row | None:
    text = str(value).lower()
    return next((u for u in call.state.rows("zendesk_users") if text in (str(u.get("email", "")).lower(),
                                                                        str(u.get("name", "")).lower(),
                                                                        str(u.get("id")))), None)


def _requester(resources: Resources, call: Call, ticket: dict) -> Any:
    """`requester_id`, or `requester: {email, name}` (found, else made an end user), else who acts."""
    if ticket.get("requester_id"):
        return ticket["requester_id"]
    given = ticket.get("requester")
    if isinstance(given, dict) and given.get("email"):
        found = _user_by(call, given["email"])
        if found:
            return found["id"]
        made = styles.new_id(BIG, {u["id"] for u in call.state.rows("zendesk_users")})
        call.state.insert("zendesk_users", resources.schemas.fill(
            {**DEFAULTS["zendesk_users"], "id": made, "name": given.get("name") or given["email"],
             "email": given["email"], "created_at": _now(), "updated_at": _now(),
             "url": f"{_site(call)}/api/v2/users/{made}.json"}, resources.schemas.named("UserObject")))
        return made
    return (_me(call) or {}).get("id")


def _site(call: Call) -> str:
    return f"https://{call.headers.get('host', 'example.zendesk.com')}"


def _add_comment(call: Call, ticket_id: int, comment: dict, author: Any) -> dict:
    body = str(comment.get("body") or comment.get("html_body") or "")
    taken = {c["id"] for c in call.state.rows("zendesk_tickets_comments")}
    row = {"id": styles.new_id(BIG, taken), "ticket_id": ticket_id, "type": "Comment",
           "author_id": comment.get("author_id") or author, "body": body,
           "html_body": comment.get("html_body") or f'<div class="zd-comment" dir="auto"><p dir="auto">'
                                                     f'{html.escape(body)}</p></div>',
           "plain_body": body, "public": comment.get("public", True) is not False, "attachments": [],
           "audit_id": styles.new_id(BIG, taken), "via": {"channel": "api", "source": {"from": {}, "to": {}}},
           "metadata": {}, "created_at": _now()}
    call.state.insert("zendesk_tickets_comments", row)
    return row


def _audit(ticket: Row, author: Any, events: list[dict], audit_id: Any = None) -> dict:
    return {"id": audit_id or styles.new_id(BIG, set()), "ticket_id": ticket["id"], "created_at": _now(),
            "author_id": author, "via": {"channel": "api", "source": {"from": {}, "to": {}, "rel": None}},
            "metadata": {}, "events": events}


def _comment_event(comment: dict) -> dict:
    return {"id": comment["id"], "type": "Comment", "author_id": comment["author_id"], "body": comment["body"],
            "html_body": comment["html_body"], "plain_body": comment["plain_body"], "public": comment["public"],
            "attachments": [], "audit_id": comment["audit_id"]}


def create_ticket(resources: Resources, call: Call) -> Any:
    ticket = resources.body(call)
    comment = ticket.get("comment") if isinstance(ticket.get("comment"), dict) else \
        {"body": ticket["description"]} if ticket.get("description") else {}
    if not (comment.get("body") or comment.get("html_body")):
        raise record_invalid("description", "Description: cannot be blank")
    me = (_me(call) or {}).get("id")
    number = 1 + max([t["id"] for t in call.state.rows("zendesk_tickets") if isinstance(t["id"], int)] or [0])
    status = ticket.get("status") or ("open" if ticket.get("assignee_id") else "new")
    call.body = {"ticket": {k: v for k, v in ticket.items() if k not in TICKET_WRITES}}
    text = str(comment.get("body") or comment.get("html_body"))
    answer = resources.create(call, {
        "id": number, "url": f"{_site(call)}/api/v2/tickets/{number}.json", "status": status,
        "requester_id": _requester(resources, call, ticket), "submitter_id": me,
        "subject": ticket.get("subject") or text.splitlines()[0][:100], "raw_subject": ticket.get("subject") or "",
        "description": text, "via": {"channel": "api"}, "is_public": comment.get("public", True) is not False,
        "tags": ticket.get("tags") or [], "collaborator_ids": [], "follower_ids": [], "email_cc_ids": [],
        "custom_fields": ticket.get("custom_fields") or [], "has_incidents": False})
    made = _add_comment(call, number, comment, me)
    events = [_comment_event(made), *({"id": styles.new_id(BIG, set()), "type": "Create", "field_name": name,
                                       "value": str(answer["ticket"].get(name))} for name in ("status", "subject"))]
    return {**answer, "audit": _audit(answer["ticket"], me, events, made["audit_id"])}


def update_ticket(resources: Resources, call: Call) -> Any:
    current = resources.find(call, resources.model["resources"]["zendesk_tickets"])
    changes = resources.body(call)
    if current.get("status") == "closed":
        raise record_invalid("status", "Status: closed prevents ticket update", "ClosedPreventsUpdate")
    comment = changes.get("comment") if isinstance(changes.get("comment"), dict) else None
    if comment is not None and not (comment.get("body") or comment.get("html_body")):
        raise record_invalid("comment", "Comment: cannot be blank")
    kept = {k: v for k, v in changes.items() if k not in TICKET_WRITES and k not in ("created_at", "url")}
    if current.get("status") == "new" and kept.get("assignee_id") and not kept.get("status"):
        kept["status"] = "open"  # assigning a new ticket opens it
    call.body = {"ticket": kept}
    answer = resources.update(call)
    me = (_me(call) or {}).get("id")
    events = [{"id": styles.new_id(BIG, set()), "type": "Change", "field_name": name, "value": str(value),
               "previous_value": str(current.get(name))} for name, value in kept.items() if current.get(name) != value]
    if comment is not None:
        events.insert(0, _comment_event(_add_comment(call, current["id"], comment, me)))
    return {**answer, "audit": _audit(answer["ticket"], me, events)}


def create_stamped(resources: Resources, call: Call) -> Any:
    """A user or organization, with its API url and times (a user's schema is one of two shapes,
    so the engine finds no `created_at` to stamp)."""
    resource = resources.resource(call)
    made = styles.new_id(resource["id"], {r["id"] for r in call.state.rows(resource["table"])})
    return resources.create(call, {"id": made, "created_at": _now(), "updated_at": _now(),
                                   "url": f"{_site(call)}{resource['item'].split('{')[0]}{made}.json"})


def current_user(resources: Resources, call: Call) -> Any:
    me = _me(call)
    if me is None:
        raise RestError(401, "Couldn't authenticate you", "Couldn't authenticate you")
    return {"user": resources.schemas.fill(me, resources.schemas.named("UserObject"))}


def _found(call: Call, query: str) -> list[tuple[str, Row]]:
    def resolve(field: str, value: str) -> Any:
        if field == "organization":
            return (call.state.first("zendesk_organizations", name=value) or {}).get("id")
        return (_user_by(call, value) or {}).get("id")
    kinds, holds = query_language.matcher(query, _me(call), resolve)
    return [(kind, row) for kind in ("ticket", "user", "organization") if kind in kinds
            for row in call.state.rows(query_language.TABLES[kind]) if holds(kind, row)]


def search(resources: Resources, call: Call) -> Any:
    found = _found(call, str(call.params.get("query") or ""))
    by = call.params.get("sort_by")
    if by in ("created_at", "updated_at", "priority", "status", "ticket_type"):
        field = "type" if by == "ticket_type" else by
        order = query_language.ORDERED.get(field)
        found.sort(key=lambda f: order.index(f[1].get(field)) if order and f[1].get(field) in order
                   else str(f[1].get(field) or ""), reverse=call.params.get("sort_order") != "asc")
    schemas = {"ticket": "TicketObject", "user": "UserObject", "organization": "OrganizationObject"}
    results = [{**resources.schemas.fill(row, resources.schemas.named(schemas[kind])), "result_type": kind}
               for kind, row in found]
    return {"results": results, "count": len(results), "next_page": None, "previous_page": None, "facets": None}


def count_search(resources: Resources, call: Call) -> Any:
    return {"count": len(_found(call, str(call.params.get("query") or "")))}


def count_tickets(resources: Resources, call: Call) -> Any:
    return {"count": {"value": len(call.state.rows("zendesk_tickets")), "refreshed_at": _now()}}


def search_users(resources: Resources, call: Call) -> Any:
    query, external = str(call.params.get("query") or "").lower(), call.params.get("external_id")
    field, _, value = query.partition(":") if ":" in query else ("", "", query)
    users = [u for u in call.state.rows("zendesk_users")
             if (external is None or u.get("external_id") == external)
             and (not value or any(value in str(u.get(f) or "").lower() for f in ([field] if field else
                                                                                   ["name", "email"])))]
    return {"users": [resources.schemas.fill(u, resources.schemas.named("UserObject")) for u in users]}


HANDLERS = {"CreateTicket": create_ticket, "UpdateTicket": update_ticket, "ShowCurrentUser": current_user,
            "ListSearchResults": search, "CountSearchResults": count_search, "CountTickets": count_tickets,
            "SearchUsers": search_users, "CreateUser": create_stamped, "CreateOrganization": create_stamped}

# Credentials: an API token with its agent's email and the account's subdomain.
credentials = issuer("", {"ZENDESK_API_TOKEN": "{token}", "ZENDESK_EMAIL": "{user[email]}",
                           "ZENDESK_SUBDOMAIN": "{subdomain}"})
