"""Intercom's rules that its OpenAPI description does not say, over the generated pack: `/me`
is the acting admin; a conversation a contact starts answers as the message it is, a reply
(admin or contact) and a close, open, snooze or assignment are conversation parts added to it
(its `state`, `open`, `admin_assignee_id` follow); contacts and conversations are found by
Intercom's search query (`field`/`operator`/`value`, nested `AND`/`OR`); notes are written by
the acting admin; ids are Intercom's (24 hex digits for contacts, numbers for conversations);
and its error shape, `{"type": "error.list", "request_id", "errors": [{"code", "message"}]}`."""

from __future__ import annotations

from typing import Any

from mock_services import clock
from mock_services.rest.errors import RestError
from mock_services.rest.openapi import styles
from mock_services.rest.openapi.credentials import issuer
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import Call
from mock_services.store import Row

NUMBER = {"kind": "numeric", "digits": 9, "as": "string"}
IDS = {"intercom_contacts": {"kind": "prefix", "prefix": "", "length": 24, "alphabet": "hex"},
       "intercom_conversations": {"kind": "numeric", "digits": 15, "as": "string"},
       "intercom_contacts_notes": NUMBER, "intercom_tags": NUMBER, "intercom_admins": NUMBER}
DEFAULTS = {"intercom_contacts": {"type": "contact", "role": "user", "tags": {"type": "list", "data": []},
                                  "custom_attributes": {}},
            "intercom_tags": {"type": "tag"}, "intercom_contacts_notes": {"type": "note"}}
MISSING = {"intercom_contacts": "User Not Found", "intercom_conversations": "Resource Not Found",
           "intercom_admins": "Admin not found", "intercom_contacts_notes": "Resource Not Found",
           "intercom_tags": "Resource Not Found"}
CODES = {"resource_missing": "not_found", "not_modeled": "intercom_version_invalid", "unauthorized": "unauthorized",
         "rate_limit": "rate_limit_exceeded"}


def error_body(error: RestError) -> dict:
    code = CODES.get(error.reason, "parameter_invalid" if error.status == 400 else "server_error")
    if error.status == 404 and error.reason != "not_modeled":
        code = "not_found"
    return {"type": "error.list", "request_id": str(clock.uuid4()), "errors": [{"code": code, "message": error.message}]}


def _now() -> int:
    return int(clock.now())


def _admin(call: Call) -> Row:
    found = call.state.first("intercom_admins", id=call.user)
    if found is None:
        raise RestError(401, "unauthorized", "Access Token Invalid")
    return found


def me(resources: Resources, call: Call) -> Any:
    admin = dict(_admin(call))
    admin["app"] = {"type": "app", "id_code": "acme", "name": "Acme", "created_at": 1767603600, "secure": True,
                    "identity_verification": False, "timezone": "Europe/London", "region": "US"}
    return resources.schemas.fill(admin, resources.response(call.operation.short_id)[1])


def _part(call: Call, kind: str, author: dict, body: str | None = None, **extra: Any) -> dict:
    at = _now()
    return {"type": "conversation_part", "id": styles.new_id(NUMBER, set()), "part_type": kind, "body": body,
            "created_at": at, "updated_at": at, "notified_at": at, "author": author, "attachments": [],
            "redacted": False, **extra}


def _admin_author(row: Row) -> dict:
    return {"type": "admin", "id": row["id"], "name": row.get("name"), "email": row.get("email")}


def _conversation(resources: Resources, call: Call) -> Row:
    return resources.find(call, resources.model["resources"]["intercom_conversations"], call.params["conversation_id"])


def _with_part(resources: Resources, call: Call, row: Row, part: dict, **changes: Any) -> Any:
    parts = (row.get("conversation_parts") or {}).get("conversation_parts") or []
    row = {**row, **changes, "updated_at": part["created_at"],
           "conversation_parts": {"type": "conversation_part.list", "conversation_parts": [*parts, part],
                                  "total_count": len(parts) + 1}}
    call.state.update("intercom_conversations", row)
    return resources.schemas.fill(dict(row), resources.schemas.named("conversation"))


def reply(resources: Resources, call: Call) -> Any:
    body = resources.body(call)
    row = _conversation(resources, call)
    if body.get("type") == "admin":
        admin = call.state.first("intercom_admins", id=str(body.get("admin_id"))) or _admin(call)
        kind = "note" if body.get("message_type") == "note" else "comment"
        part = _part(call, kind, _admin_author(admin), body.get("body"))
        return _with_part(resources, call, row, part, **({} if kind == "note" else {"waiting_since": None}))
    contact = call.state.first("intercom_contacts", id=body.get("intercom_user_id")) or \
        call.state.first("intercom_contacts", email=body.get("email"))
    if contact is None:
        raise RestError(404, "resource_missing", "User Not Found")
    author = {"type": "user", "id": contact["id"], "name": contact.get("name"), "email": contact.get("email")}
    return _with_part(resources, call, row, _part(call, "comment", author, body.get("body")), waiting_since=_now(),
                      open=True, state="open")


def manage(resources: Resources, call: Call) -> Any:
    """close, open, snooze, assignment: a part each, and the conversation's state as it leaves it."""
    body = resources.body(call)
    row = _conversation(resources, call)
    admin = call.state.first("intercom_admins", id=str(body.get("admin_id"))) or _admin(call)
    kind = body.get("message_type")
    if kind == "close":
        return _with_part(resources, call, row, _part(call, "close", _admin_author(admin), body.get("body")),
                          state="closed", open=False)
    if kind == "open":
        return _with_part(resources, call, row, _part(call, "open", _admin_author(admin)), state="open", open=True,
                          snoozed_until=None)
    if kind == "snoozed":
        return _with_part(resources, call, row, _part(call, "snoozed", _admin_author(admin)), state="snoozed",
                          open=True, snoozed_until=body.get("snoozed_until"))
    if kind == "assignment":
        assignee = str(body.get("assignee_id"))
        if call.state.first("intercom_admins", id=assignee) is None and assignee != "0":
            raise RestError(404, "resource_missing", "Admin not found")
        return _with_part(resources, call, row, _part(call, "assignment", _admin_author(admin), body.get("body"),
                                                      assigned_to={"type": "admin", "id": assignee}),
                          admin_assignee_id=int(assignee) if assignee != "0" else None)
    raise RestError(400, "invalid", f"message_type {kind!r} is not one of close, open, snoozed, assignment")


def start_conversation(resources: Resources, call: Call) -> Any:
    """A contact's inbound message: a new open conversation, answered as the message."""
    body = resources.body(call)
    sender = body.get("from") or {}
    contact = call.state.first("intercom_contacts", id=sender.get("id"))
    if contact is None:
        raise RestError(404, "resource_missing", "User Not Found")
    taken = {r["id"] for r in call.state.rows("intercom_conversations")}
    made, message, at = styles.new_id(IDS["intercom_conversations"], taken), styles.new_id(NUMBER, set()), _now()
    author = {"type": "user", "id": contact["id"], "name": contact.get("name"), "email": contact.get("email")}
    call.state.insert("intercom_conversations", resources.schemas.fill({
        "id": made, "type": "conversation", "created_at": at, "updated_at": at, "waiting_since": at, "open": True,
        "state": "open", "read": False, "priority": "not_priority", "admin_assignee_id": None, "title": None,
        "source": {"type": "conversation", "id": message, "delivered_as": "customer_initiated", "subject": "",
                   "body": body.get("body"), "author": author, "attachments": [], "redacted": False},
        "contacts": {"type": "contact.list", "contacts": [{"type": "contact", "id": contact["id"]}]},
        "conversation_parts": {"type": "conversation_part.list", "conversation_parts": [], "total_count": 0}},
        resources.schemas.named("conversation")))
    return {"type": "user_message", "id": message, "created_at": at, "body": body.get("body"),
            "message_type": "inapp", "conversation_id": made}


def _value(row: Row, field: str) -> Any:
    node: Any = row
    for part in field.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node


OPERATORS = {"=": lambda a, b: a == b, "!=": lambda a, b: a != b, "IN": lambda a, b: a in (b or []),
             "NIN": lambda a, b: a not in (b or []), ">": lambda a, b: a is not None and a > b,
             "<": lambda a, b: a is not None and a < b, "~": lambda a, b: str(b).lower() in str(a or "").lower(),
             "!~": lambda a, b: str(b).lower() not in str(a or "").lower(),
             "^": lambda a, b: str(a or "").lower().startswith(str(b).lower()),
             "$": lambda a, b: str(a or "").lower().endswith(str(b).lower())}


def _matches(row: Row, query: dict) -> bool:
    if "value" in query and isinstance(query["value"], list) and query.get("operator") in ("AND", "OR"):
        found = [_matches(row, q) for q in query["value"]]
        return all(found) if query["operator"] == "AND" else any(found)
    operator = query.get("operator", "=")
    if operator not in OPERATORS:
        raise RestError(400, "invalid", f"detour's Intercom replica does not model the {operator} operator yet")
    value = _value(row, str(query.get("field", "")))
    wanted = query.get("value")
    if isinstance(value, (int, float)) and isinstance(wanted, str) and wanted.lstrip("-").isdigit():
        wanted = int(wanted)
    return OPERATORS[operator](value, wanted)


def _search(table: str, items: str, list_type: str):
    def search(resources: Resources, call: Call) -> Any:
        body = resources.body(call)
        rows = [r for r in call.state.rows(table) if _matches(r, body.get("query") or {})]
        return {"type": list_type, items: [resources.schemas.fill(dict(r), resources.schemas.named(
            "contact" if table == "intercom_contacts" else "conversation")) for r in rows], "total_count": len(rows),
                "pages": {"type": "pages", "page": 1, "per_page": max(len(rows), 1), "total_pages": 1}}
    return search


def create_note(resources: Resources, call: Call) -> Any:
    body = resources.body(call)
    admin = call.state.first("intercom_admins", id=str(body.get("admin_id"))) or _admin(call)
    return resources.create(call, {"author": {"type": "admin", "id": admin["id"], "name": admin.get("name"),
                                              "email": admin.get("email")}, "created_at": _now(),
                                   "contact": {"type": "contact", "id": call.params["contact_id"]}})


def create_contact(resources: Resources, call: Call) -> Any:
    at = _now()
    return resources.create(call, {"created_at": at, "updated_at": at, "workspace_id": "acme"})


HANDLERS = {"identifyAdmin": me, "replyConversation": reply, "manageConversation": manage,
            "createConversation": start_conversation, "createNote": create_note, "CreateContact": create_contact,
            "SearchContacts": _search("intercom_contacts", "data", "list"),
            "searchConversations": _search("intercom_conversations", "conversations", "conversation.list")}

# Credentials: an access token, as Intercom(token=os.environ["INTERCOM_ACCESS_TOKEN"]) takes it.
credentials = issuer("dG9r:", {"INTERCOM_ACCESS_TOKEN": "{token}"})
