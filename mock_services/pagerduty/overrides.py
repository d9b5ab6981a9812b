"""PagerDuty's rules that its REST API description does not say, over the generated pack: ids
look as PagerDuty's do (`P` and six capitals or digits), every object carries its `type`,
`summary`, `self` and `html_url`; an incident is numbered per account and opens `triggered`,
its `incident_key` unique; incidents list by `statuses[]`, `urgencies[]` and `service_ids[]`;
`/users/me` is the acting person; and PagerDuty's error shape,
`{"error": {"message", "code", "errors"}}` with its numeric codes."""

from __future__ import annotations

from typing import Any

from mock_services.rest.errors import RestError
from mock_services.rest.openapi.credentials import issuer
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import Call

TABLES = {"pagerduty_incidents": "incident", "pagerduty_services": "service", "pagerduty_users": "user",
          "pagerduty_teams": "team", "pagerduty_escalation_policies": "escalation_policy"}
PD_ID = {"kind": "prefix", "prefix": "P", "length": 6, "alphabet": "upper"}
IDS = {**{table: PD_ID for table in TABLES}, "pagerduty_incidents_notes": PD_ID}
DEFAULTS = {"pagerduty_incidents": {"type": "incident", "status": "triggered", "urgency": "high",
                                    "assignments": [], "acknowledgements": []},
            "pagerduty_services": {"type": "service", "status": "active"},
            "pagerduty_users": {"type": "user", "role": "user", "time_zone": "Etc/UTC"},
            "pagerduty_teams": {"type": "team"},
            "pagerduty_escalation_policies": {"type": "escalation_policy", "num_loops": 0}}
MISSING = {table: "Not Found" for table in IDS}
OPTIONAL_HEADERS = {"Accept", "Content-Type"}  # described as required everywhere; PagerDuty answers without
# PagerDuty's numeric codes (its API's error codes), by the engine's reason.
CODES = {"resource_missing": 2100, "notFound": 2100, "not_modeled": 2100, "unauthorized": 2006,
         "rate_limit": 2020, "httpMethodNotAllowed": 2100}
HTML = "https://acme.pagerduty.com"


def error_body(error: RestError) -> dict:
    """`{"error": {"message": "Invalid Input Provided", "code": 2001, "errors": [...]}}`."""
    code = CODES.get(error.reason, 2001 if error.status < 500 else 2002)
    if error.status == 404:
        return {"error": {"message": error.message if error.reason == "not_modeled" else "Not Found", "code": code}}
    if error.status in (400, 422):
        return {"error": {"message": "Invalid Input Provided", "code": code, "errors": [error.message]}}
    return {"error": {"message": error.message, "code": code}}


def _references(resources: Resources, call: Call, answer: Any) -> Any:
    """Each object's `summary`, `self` and `html_url`, as PagerDuty fills them."""
    table = resources.resource(call)["table"]
    row = answer.get(resources.envelope(call) or "")
    if isinstance(row, dict) and table in TABLES:
        kind = TABLES[table]
        row["summary"] = row.get("summary") or row.get("title") or row.get("name")
        row["self"], row["html_url"] = f"https://api.pagerduty.com/{kind}s/{row['id']}", f"{HTML}/{kind}s/{row['id']}"
    return answer


def create(resources: Resources, call: Call) -> Any:
    table = resources.resource(call)["table"]
    extra: dict[str, Any] = {}
    if table == "pagerduty_incidents":
        body = resources.body(call)
        taken = call.state.rows(table)
        key = body.get("incident_key")
        if key and any(r.get("incident_key") == key for r in taken):
            raise RestError(400, "invalid", "Open incident with matching dedup key already exists on this service")
        number = max((int(r.get("incident_number") or 0) for r in taken), default=0) + 1
        extra = {"incident_number": number, "summary": f"[#{number}] {body.get('title', '')}"}
    if table == "pagerduty_incidents_notes":
        me = call.state.first("pagerduty_users", id=call.user) or {}
        extra = {"user": {"id": me.get("id"), "type": "user_reference", "summary": me.get("name")}}
    made = resources.create(call, extra)
    return _references(resources, call, made)


def update(resources: Resources, call: Call) -> Any:
    """A change to an incident (its `type` there is `incident_reference`, which is not stored)."""
    return _references(resources, call, resources.update(call, {"type": "incident"}))


def list_incidents(resources: Resources, call: Call) -> Any:
    """Incidents filtered as PagerDuty filters them: by status, urgency and service."""
    answer = resources.list(call)
    wanted = {"status": call.params.get("statuses[]"), "urgency": call.params.get("urgencies[]"),
              "service": call.params.get("service_ids[]")}
    def keep(row: dict) -> bool:
        for field, values in wanted.items():
            value = (row.get(field) or {}).get("id") if field == "service" else row.get(field)
            if values and value not in values:
                return False
        return True
    answer["incidents"] = [r for r in answer["incidents"] if keep(r)]
    return answer


def me(resources: Resources, call: Call) -> Any:
    row = call.state.first("pagerduty_users", id=call.user)
    if row is None:
        raise RestError(404, "resource_missing", "Not Found")
    return {"user": resources.schemas.fill(dict(row), resources.schemas.named("User"))}


HANDLERS = {"getCurrentUser": me, "listIncidents": list_incidents, "updateIncident": update,
            **{op: create for op in ("createIncident", "createIncidentNote", "createService", "createTeam",
                                     "createUser", "createEscalationPolicy")}}

# Credentials: a REST API key, as pdpyras.APISession(key) and the PagerDuty clients take it.
credentials = issuer("u+", {"PAGERDUTY_API_KEY": "{token}", "PAGERDUTY_FROM": "{user[email]}"})
