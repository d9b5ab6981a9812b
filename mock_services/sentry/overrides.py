"""Sentry's rules that its OpenAPI description does not say, over the generated pack: issues are
listed by Sentry's search (`is:unresolved`, `is:resolved`, `is:ignored`, `is:assigned`,
`is:unassigned`, `assigned:me` or an email, `level:error`, free text in the title or culprit;
`is:unresolved` where no query is given) and by `project`; an issue is resolved, ignored,
reopened or assigned (`assignedTo`: `me`, `user:ID`, an email or a username; `""` unassigns) by
PUT, each also recorded in its `activity`; a project's issues are the organization's issues
of that project; a project is read by its slug; ids are numbers as text; and Sentry's error
shape, `{"detail": "..."}`."""

from __future__ import annotations

from typing import Any

from mock_services import clock
from mock_services.rest.errors import RestError
from mock_services.rest.openapi.credentials import issuer
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import Call
from mock_services.store import Row

NUMBER = {"kind": "numeric", "digits": 10, "as": "string"}
IDS = {"sentry_issues": NUMBER, "sentry_members": {"kind": "numeric", "digits": 7, "as": "string"},
       "sentry_projects": {"kind": "numeric", "digits": 7, "as": "string"},
       "sentry_events": {"kind": "prefix", "prefix": "", "length": 32, "alphabet": "hex"}}
MISSING = {table: "The requested resource does not exist" for table in IDS}
RESOLUTIONS = {"resolved": "set_resolved", "unresolved": "set_unresolved", "ignored": "set_ignored",
               "muted": "set_ignored", "resolvedInNextRelease": "set_resolved_in_release"}


def error_body(error: RestError) -> dict:
    return {"detail": error.message}


def _now() -> str:
    return clock.utcnow().isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _member(call: Call, who: str) -> Row | None:
    """The member `who` names: `me`, `user:ID`, an email, a username or a member id."""
    if who == "me":
        return call.state.first("sentry_members", id=call.user)
    who = who.removeprefix("user:")
    return next((m for m in call.state.rows("sentry_members")
                 if who in (m["id"], (m.get("user") or {}).get("id"), m.get("email"),
                            (m.get("user") or {}).get("username"))), None)


def _holds(call: Call, row: Row, term: str) -> bool:
    key, _, value = term.partition(":")
    assignee = row.get("assignedTo") or {}
    if not value:
        text = term.strip('"').lower()
        return text in str(row.get("title", "")).lower() or text in str(row.get("culprit", "")).lower()
    if key == "is":
        if value in ("unresolved", "resolved", "ignored"):
            return row.get("status") == value
        if value in ("assigned", "unassigned"):
            return bool(assignee) == (value == "assigned")
        raise RestError(400, "invalid", f"Invalid value '{value}' for 'is:' search. Valid values are: assigned, "
                                        "unassigned, resolved, unresolved, ignored")
    if key == "assigned":
        member = _member(call, value)
        return bool(member) and assignee.get("id") == (member.get("user") or {}).get("id")
    if key == "level":
        return row.get("level") == value
    raise RestError(400, "invalid", f"detour's Sentry replica does not model the search key '{key}' yet")


def list_issues(resources: Resources, call: Call) -> Any:
    query = call.params.get("query")
    terms = (query if query is not None else "is:unresolved").split()
    project = call.params.get("project_id_or_slug")
    projects = {str(p) for p in call.params.get("project") or []} if isinstance(call.params.get("project"), list) \
        else ({str(call.params["project"])} if call.params.get("project") else set())
    rows = [r for r in call.state.rows("sentry_issues")
            if all(_holds(call, r, t) for t in terms)
            and (not project or project in ((r.get("project") or {}).get("slug"), (r.get("project") or {}).get("id")))
            and (not projects or (r.get("project") or {}).get("id") in projects)]
    rows.sort(key=lambda r: str(r.get("lastSeen") or ""), reverse=True)
    limit = call.params.get("limit") or 100
    schema = resources.schemas.resolve(resources.response(call.operation.short_id)[1]).get("items")
    return [resources.schemas.fill(dict(r), schema) for r in rows[:limit]]


def update_issue(resources: Resources, call: Call) -> Any:
    """status and assignedTo as Sentry takes them; each change an activity of the acting member.
    (Its description calls every field of the body required; Sentry takes any of them alone.)"""
    body = call.body if isinstance(call.body, dict) else {}
    if body.get("status") not in (None, *RESOLUTIONS):
        raise RestError(400, "invalid", f"\"{body['status']}\" is not a valid choice.")
    row = resources.find(call, resources.resource(call))
    me = call.state.first("sentry_members", id=call.user) or {}
    changes: dict[str, Any] = {}
    activity = list(row.get("activity") or [])
    if "status" in body:
        changes["status"] = "resolved" if body["status"] == "resolvedInNextRelease" else \
            "ignored" if body["status"] == "muted" else body["status"]
        changes["substatus"] = {"unresolved": "ongoing", "ignored": "archived_until_escalating"}.get(changes["status"])
        activity.append({"id": str(len(activity) + 1), "type": RESOLUTIONS[body["status"]], "data": {},
                         "user": me.get("user"), "dateCreated": _now()})
    if "assignedTo" in body:
        who = body["assignedTo"]
        member = _member(call, who) if who else None
        if who and member is None:
            raise RestError(400, "invalid", "Unknown actor input")
        user = (member or {}).get("user") or {}
        changes["assignedTo"] = {"type": "user", "id": user.get("id"), "name": user.get("name"),
                                 "email": member.get("email")} if member else None
        activity.append({"id": str(len(activity) + 1), "type": "assigned" if member else "unassigned",
                         "data": {"assignee": user.get("id"), "assigneeType": "user"} if member else {},
                         "user": me.get("user"), "dateCreated": _now()})
    call.state.update("sentry_issues", {**row, **changes, "activity": activity})
    return resources.schemas.fill({**row, **changes, "activity": activity},
                                  resources.schemas.named("sentry_organizations_issues"))


def get_project(resources: Resources, call: Call) -> Any:
    wanted = call.params.get("project_id_or_slug")
    row = next((p for p in call.state.rows("sentry_projects") if wanted in (p.get("slug"), p["id"])), None)
    if row is None:
        raise RestError(404, "resource_missing", "The requested resource does not exist")
    return resources.schemas.fill(dict(row), resources.schemas.named("sentry_organizations_projects"))


HANDLERS = {"listOrganizationIssues": list_issues, "List a Project's Issues": list_issues,
            "updateOrganizationIssue": update_issue, "getProject": get_project}

# Credentials: an auth token, as Sentry's API takes it (Authorization: Bearer), and the CLI's names.
credentials = issuer("sntrys_", {"SENTRY_AUTH_TOKEN": "{token}", "SENTRY_ORG": "acme"})
