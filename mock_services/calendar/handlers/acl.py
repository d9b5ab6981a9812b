"""acl.*: who may see and change a calendar. Writers may read the rules, owners change them;
a deleted rule stays as a row marked `deleted` (as AgentDiff's tables record it)."""

from __future__ import annotations

from mock_services.calendar import access
from mock_services.calendar.handlers.channels import watch
from mock_services.calendar.handlers.paging import page
from mock_services.calendar.resources import acl_json, drop_none, new_etag, rule_id
from mock_services.calendar.times import now_text
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row

SCOPES = ("default", "user", "group", "domain")


def _rules(call: Call, calendar: Row, deleted: bool = False) -> list[Row]:
    return [r for r in call.state.rows("calendar_acl_rules", calendar_id=calendar["id"])
            if deleted or not r.get("deleted")]


def _rule(call: Call, calendar: Row, given: str) -> Row:
    """A rule by Google's id (`user:ann@x`), or by the row's own id (`cal:user:ann@x`)."""
    for rule in _rules(call, calendar):
        if given in (rule_id(rule), rule.get("id"), f"{calendar['id']}:{rule_id(rule)}"):
            return rule
    raise RestError(404, "notFound", "Not Found")


def _checked(body: dict) -> tuple[str, str, str | None]:
    role, scope = body.get("role"), body.get("scope") or {}
    if not role:
        raise RestError(400, "required", "Missing role.")
    if role not in access.ROLES:
        raise RestError(400, "invalid", f"Invalid role: {role}")
    kind = scope.get("type")
    if kind not in SCOPES:
        raise RestError(400, "required" if not kind else "invalid", "Missing scope type." if not kind else
                        f"Invalid scope type: {kind}")
    value = scope.get("value")
    if kind != "default" and not value:
        raise RestError(400, "required", "Missing scope value.")
    return role, kind, value


def list_rules(call: Call) -> dict:
    found, _ = access.calendar(call, call.params["calendarId"], at_least="writer")
    rules = [acl_json(r) for r in _rules(call, found, deleted=call.arg("showDeleted", False))]
    items, next_token = page(call, rules, 100, 250)
    return drop_none({"kind": "calendar#acl", "etag": new_etag(), "items": items, "nextPageToken": next_token,
                      "nextSyncToken": None if next_token else "acl-sync"})


def get_rule(call: Call) -> dict:
    found, _ = access.calendar(call, call.params["calendarId"], at_least="writer")
    return acl_json(_rule(call, found, call.params["ruleId"]))


def insert_rule(call: Call) -> dict:
    found, _ = access.calendar(call, call.params["calendarId"], at_least="owner")
    role, kind, value = _checked(call.body or {})
    now = now_text()
    existing = next((r for r in call.state.rows("calendar_acl_rules", calendar_id=found["id"])
                     if r.get("scope_type") == kind and (r.get("scope_value") or None) == value), None)
    row = (existing or {"id": f"{found['id']}:{kind}:{value}" if value else f"{found['id']}:default",
                        "calendar_id": found["id"], "created_at": now}) | {
        "role": role, "scope_type": kind, "scope_value": value, "deleted": False, "etag": new_etag(), "updated_at": now}
    (call.state.update if existing else call.state.insert)("calendar_acl_rules", drop_none(row))
    return acl_json(row)


def change_rule(call: Call, replace: bool) -> dict:
    found, _ = access.calendar(call, call.params["calendarId"], at_least="owner")
    rule = _rule(call, found, call.params["ruleId"])
    body = call.body or {}
    if replace and not body.get("role"):
        raise RestError(400, "required", "Missing role.")
    role = body.get("role", rule.get("role"))
    if role not in access.ROLES:
        raise RestError(400, "invalid", f"Invalid role: {role}")
    scope = body.get("scope") or {}
    if scope and (scope.get("type"), scope.get("value")) != (rule.get("scope_type"), rule.get("scope_value")):
        raise RestError(400, "invalid", "Cannot change the scope of a rule.")
    updated = rule | {"role": role, "etag": new_etag(), "updated_at": now_text()}
    call.state.update("calendar_acl_rules", updated)
    return acl_json(updated)


def delete_rule(call: Call) -> None:
    found, _ = access.calendar(call, call.params["calendarId"], at_least="owner")
    rule = _rule(call, found, call.params["ruleId"])
    if found.get("owner_id") and rule.get("scope_value") == access.user_email(call, found["owner_id"]) \
            and rule.get("role") == "owner":
        raise RestError(403, "cannotChangeOwnAcl", "Cannot change your own access level.")
    call.state.update("calendar_acl_rules", rule | {"deleted": True, "etag": new_etag(), "updated_at": now_text()})


def watch_rules(call: Call) -> dict:
    found, _ = access.calendar(call, call.params["calendarId"], at_least="writer")
    return watch(call, f"/calendars/{call.params['calendarId']}/acl", f"/calendars/{found['id']}/acl")


HANDLERS = {
    "acl.list": list_rules, "acl.get": get_rule, "acl.insert": insert_rule,
    "acl.patch": lambda call: change_rule(call, replace=False),
    "acl.update": lambda call: change_rule(call, replace=True),
    "acl.delete": delete_rule,
    "acl.watch": watch_rules,
}
