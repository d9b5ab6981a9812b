"""Zendesk's search query language, the common part of it, over stored tickets, users and
organizations: `type:ticket status:open`, `status<solved`, `priority>=high`, `assignee:me`,
`requester:hank@globex.example.com`, `tags:login`, `-status:closed` (negation), `"quoted words"`,
and bare words matched in the subject, description, name or email. Terms are ANDed, as Zendesk
does. A field it does not know is a 400 that says so rather than an answer that silently drops
it."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from typing import Any

from mock_services.rest.errors import RestError
from mock_services.store import Row

TERM = re.compile(r"^(-?)([a-z_]+)(:|<=|>=|<|>)(.*)$")
ORDERED = {"status": ("new", "open", "pending", "hold", "solved", "closed"),
           "priority": ("low", "normal", "high", "urgent")}
PEOPLE = {"assignee": "assignee_id", "requester": "requester_id", "submitter": "submitter_id"}
# A search field -> the stored field it reads, per result type.
FIELDS = {"ticket": {"status": "status", "priority": "priority", "ticket_type": "type", "subject": "subject",
                     "description": "description", "tags": "tags", "tag": "tags", "organization": "organization_id",
                     "external_id": "external_id", "group": "group_id", **PEOPLE},
          "user": {"name": "name", "email": "email", "role": "role", "tags": "tags", "tag": "tags",
                   "organization": "organization_id", "external_id": "external_id"},
          "organization": {"name": "name", "tags": "tags", "tag": "tags", "external_id": "external_id",
                           "details": "details", "notes": "notes"}}
TEXT = {"ticket": ("subject", "description"), "user": ("name", "email"), "organization": ("name", "details")}
TABLES = {"ticket": "zendesk_tickets", "user": "zendesk_users", "organization": "zendesk_organizations"}


def invalid(message: str) -> RestError:
    return RestError(400, "InvalidSearchQuery", message)


def _words(query: str) -> list[str]:
    try:
        return shlex.split(query)
    except ValueError:
        raise invalid("The search query has an unclosed quote") from None


def _compare(stored: Any, operator: str, wanted: str, field: str) -> bool:
    values = [str(v).lower() for v in (stored if isinstance(stored, list) else [stored]) if v is not None]
    wanted = wanted.lower()
    if operator == ":":
        if wanted == "none":
            return not values
        if wanted.endswith("*"):
            return any(v.startswith(wanted[:-1]) for v in values)
        return wanted in values if field in ("tags", "status", "priority", "type", "role") or \
            field.endswith("_id") else any(wanted in v for v in values)
    order = ORDERED.get(field)
    if order is None or wanted not in order:
        raise invalid(f"detour's Zendesk replica orders only {' and '.join(ORDERED)} with {operator}")
    ranks = [order.index(v) for v in values if v in order]
    target = order.index(wanted)
    test = {"<": lambda r: r < target, ">": lambda r: r > target, "<=": lambda r: r <= target,
            ">=": lambda r: r >= target}[operator]
    return any(test(r) for r in ranks)


def matcher(query: str, me: Row | None,
            resolve: Callable[[str, str], Any]) -> tuple[set[str], Callable[[str, Row], bool]]:
    """(the result types the query asks for, a test of one row of a type). `resolve(field, value)`
    finds the id a person's email or name, or an organization's name, stands for
    (`assignee:yuki@example.com`, `organization:Globex`)."""
    kinds = set(TABLES)
    tests: list[tuple[bool, str, str, str]] = []  # negated, field, operator, value
    for word in _words(query):
        found = TERM.match(word)
        if not found:
            tests.append((False, "", ":", word))
            continue
        negated, field, operator, value = found.groups()
        if field == "type":
            if value not in TABLES:
                raise invalid(f"detour's Zendesk replica searches tickets, users and organizations, not {value!r}")
            kinds = {value}
            continue
        if field in PEOPLE and value == "me":
            value = str((me or {}).get("id"))
        elif (field in PEOPLE or field == "organization") and value != "none" and not value.isdigit():
            value = str(resolve(field, value))
        tests.append((bool(negated), field, operator, value))
    for _, field, _, _ in tests:
        if field and not any(field in FIELDS[k] for k in kinds):
            raise invalid(f"detour's Zendesk replica does not search by {field!r} yet")

    def holds(kind: str, row: Row) -> bool:
        for negated, field, operator, value in tests:
            if not field:
                hit = any(value.lower() in str(row.get(f) or "").lower() for f in TEXT[kind])
            elif field not in FIELDS[kind]:
                return False
            else:
                stored = FIELDS[kind][field]
                hit = _compare(row.get(stored), operator, value, stored)
            if hit == negated:
                return False
        return True
    return kinds, holds
