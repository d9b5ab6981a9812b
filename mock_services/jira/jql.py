"""JQL's common clauses over stored issues: `field op value` joined by AND, then ORDER BY.
Fields: project, status, statusCategory, assignee, reporter, issuetype (type), key (issue),
labels, priority, summary, description, text; operators =, !=, ~, !~, IN, NOT IN, IS [NOT]
EMPTY; values quoted or bare, `currentUser()`. What is outside that is Jira's 400 naming it,
never a silent match of everything."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from mock_services.rest.errors import RestError

TOKEN = re.compile(r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\')|(?P<op>!=|!~|=|~|\(|\)|,)'
                   r'|(?P<word>[^\s=!~(),"\']+(?:\(\))?))')
FIELDS = {"project", "status", "statuscategory", "assignee", "reporter", "issuetype", "type", "key", "issue",
          "labels", "priority", "summary", "description", "text", "id", "issuekey"}
ORDERABLE = {"created", "updated", "key", "priority", "summary", "status", "assignee", "duedate"}


def invalid(message: str) -> RestError:
    return RestError(400, "invalid", message)


def _tokens(jql: str) -> list[str]:
    found, at = [], 0
    while at < len(jql.rstrip()):
        match = TOKEN.match(jql, at)
        if not match or match.end() == at:
            raise invalid(f"Error in the JQL Query: the character '{jql[at]}' is a reserved JQL character.")
        text = match.group("str")
        found.append(("v:" + bytes(text[1:-1], "utf-8").decode("unicode_escape")) if text else
                     (match.group("op") or match.group("word")))
        at = match.end()
    return found


def _text(token: str) -> str:
    return token[2:] if token.startswith("v:") else token


def parse(jql: str) -> tuple[list[tuple[str, str, list[str]]], list[tuple[str, bool]]]:
    """(clauses: field, operator, values), (order: field, descending)."""
    tokens, clauses, order = _tokens(jql), [], []
    at = 0
    while at < len(tokens):
        word = tokens[at].lower()
        if word == "order" and at + 1 < len(tokens) and tokens[at + 1].lower() == "by":
            at += 2
            while at < len(tokens):
                field = _text(tokens[at]).lower()
                if field not in ORDERABLE:
                    raise invalid(f"Not able to sort using field '{field}'.")
                descending = at + 1 < len(tokens) and tokens[at + 1].lower() == "desc"
                at += 2 if at + 1 < len(tokens) and tokens[at + 1].lower() in ("asc", "desc") else 1
                order.append((field, descending))
                at += 1 if at < len(tokens) and tokens[at] == "," else 0
            break
        if word == "and" and clauses:
            at += 1
            continue
        if word == "or":
            raise invalid("detour's Jira replica answers JQL joined by AND only; OR is not modeled yet.")
        field = _text(tokens[at]).lower()
        if field not in FIELDS:
            raise invalid(f"Field '{_text(tokens[at])}' does not exist or you do not have permission to view it.")
        op, at = _operator(tokens, at + 1)
        values, at = _values(tokens, at, op)
        clauses.append((field, op, values))
    return clauses, order


def _operator(tokens: list[str], at: int) -> tuple[str, int]:
    if at >= len(tokens):
        raise invalid("Error in the JQL Query: Expecting operator but got the end of the query.")
    word = tokens[at].lower()
    if word == "not" and at + 1 < len(tokens) and tokens[at + 1].lower() == "in":
        return "not in", at + 2
    if word == "is" and at + 1 < len(tokens) and tokens[at + 1].lower() == "not":
        return "is not", at + 2
    if word in ("=", "!=", "~", "!~", "in", "is"):
        return word, at + 1
    raise invalid(f"Error in the JQL Query: Expecting operator but got '{tokens[at]}'.")


def _values(tokens: list[str], at: int, op: str) -> tuple[list[str], int]:
    if at >= len(tokens):
        raise invalid("Error in the JQL Query: Expecting either a value, list or function but got the end.")
    if op in ("in", "not in"):
        if tokens[at] != "(":
            raise invalid("Error in the JQL Query: Expecting '(' after IN.")
        values, at = [], at + 1
        while at < len(tokens) and tokens[at] != ")":
            if tokens[at] != ",":
                values.append(_text(tokens[at]))
            at += 1
        return values, at + 1
    return [_text(tokens[at])], at + 1


def matcher(jql: str, user: str, values_of: Callable[[dict, str], list[str]]) -> tuple[Callable[[dict], bool],
                                                                                        list[tuple[str, bool]]]:
    """A predicate over stored issues, and the order; `values_of(issue, field)` gives the texts a
    field matches by (a project's key, id and name; a user's account id, email and name)."""
    clauses, order = parse(jql or "")

    def wanted(value: str) -> str:
        return user.lower() if value.lower() == "currentuser()" else value.lower()

    def holds(issue: dict) -> bool:
        for field, op, values in clauses:
            have = [v.lower() for v in values_of(issue, field)]
            if op in ("~", "!~"):
                words = [w for w in re.split(r"\W+", values[0].lower()) if w]
                found = all(any(w in h for h in have) for w in words)
                if found != (op == "~"):
                    return False
            elif op in ("is", "is not"):
                if values[0].lower() not in ("empty", "null"):
                    raise invalid("IS takes EMPTY or NULL.")
                if (not have) != (op == "is"):
                    return False
            else:
                hit = any(wanted(v) in have for v in values)
                if hit != (op in ("=", "in")):
                    return False
        return True
    return holds, order


def sort_key(issue: dict, field: str) -> Any:
    fields = issue.get("fields", {})
    if field == "key":
        prefix, _, number = str(issue.get("key", "")).rpartition("-")
        return (prefix, int(number) if number.isdigit() else 0)
    value = fields.get(field)
    if isinstance(value, dict):
        return str(value.get("name") or value.get("displayName") or value.get("id") or "")
    return str(value or "")


def values_of(issue: dict, field: str) -> list[str]:
    """The texts a stored issue's field matches by (a project's key, id and name; a user's ids and name)."""
    fields = issue.get("fields", {})
    name = {"type": "issuetype", "issue": "key", "issuekey": "key", "text": "summary"}.get(field, field)
    if name in ("key", "id"):
        return [str(issue.get(name, ""))]
    if field == "text":
        return [str(fields.get("summary") or ""), str(fields.get("description") or "")]
    if name == "statuscategory":
        category = (fields.get("status") or {}).get("statusCategory") or {}
        return [str(category.get("name", "")), str(category.get("key", ""))]
    value = fields.get(name)
    if isinstance(value, list):
        return [str(v) for v in value]
    if isinstance(value, dict):
        return [str(value[k]) for k in ("id", "key", "name", "accountId", "emailAddress", "displayName")
                if value.get(k)]
    return [str(value)] if value else []
