"""HubSpot's rules that its CRM descriptions do not say, over the generated pack: ids are
numbers (its descriptions give no example), a record's `properties` carry `hs_object_id`,
`createdate` and `lastmodifieddate`, deals answer under `/crm/v3/objects/deals` as well as their
type id `0-3`, and search (`POST .../search`: filter groups ORed, their filters ANDed, `query`
over every property, sorts, `after` paging)."""

from __future__ import annotations

from typing import Any

from mock_services import clock
from mock_services.rest.errors import RestError
from mock_services.rest.openapi import styles
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import Call
from mock_services.rest.openapi.credentials import issuer

OBJECTS = {"contacts": "hubspot_crm_objects_contacts", "companies": "hubspot_crm_objects_companies",
           "0-3": "hubspot_crm_objects_0_3"}
IDS = {table: {"kind": "numeric", "digits": 11, "as": "string"} for table in OBJECTS.values()}
ALIASES = {"/crm/v3/objects/deals": "/crm/v3/objects/0-3"}
# The descriptions require these; HubSpot (and its client) go without them.
OPTIONAL = {"SimplePublicObjectInputForCreate": ["associations"],
            "PublicObjectSearchRequest": ["after", "filterGroups", "limit", "properties", "sorts"]}
MISSING = {table: "Object not found.  objectId are usually numeric." for table in OBJECTS.values()}


def _now() -> str:
    return clock.utcnow().isoformat(timespec="milliseconds").replace("+00:00", "Z")


def create(resources: Resources, call: Call) -> Any:
    body = resources.body(call)
    resource = resources.resource(call)
    made = styles.new_id(resource["id"], {r["id"] for r in call.state.rows(resource["table"])})
    properties = {**(body.get("properties") or {}), "hs_object_id": made, "createdate": _now(),
                  "lastmodifieddate": _now()}
    return resources.create(call, {"id": made, "properties": properties, "associations": None})


def update(resources: Resources, call: Call) -> Any:
    changed = {**(resources.body(call).get("properties") or {}), "lastmodifieddate": _now()}
    call.body = {**(call.body if isinstance(call.body, dict) else {}), "properties": changed}
    return resources.update(call)


def _holds(row: dict, wanted: dict) -> bool:
    value = (row.get("properties") or {}).get(wanted.get("propertyName"))
    text, given = str(value or "").lower(), str(wanted.get("value", "")).lower()
    operator = wanted.get("operator", "EQ")
    tests = {"EQ": lambda: text == given, "NEQ": lambda: text != given,
             "CONTAINS_TOKEN": lambda: given.strip("*") in text, "NOT_CONTAINS_TOKEN": lambda: given.strip("*") not in text,
             "HAS_PROPERTY": lambda: value not in (None, ""), "NOT_HAS_PROPERTY": lambda: value in (None, ""),
             "IN": lambda: text in [str(v).lower() for v in wanted.get("values") or []],
             "NOT_IN": lambda: text not in [str(v).lower() for v in wanted.get("values") or []]}
    if operator not in tests:
        raise RestError(400, "VALIDATION_ERROR", f"detour's HubSpot replica does not model the {operator} operator yet")
    return tests[operator]()


def search(resources: Resources, call: Call) -> Any:
    body = resources.body(call)
    kind = call.operation.path.split("/")[3]
    table = OBJECTS["0-3" if kind == "deals" else kind]
    groups = body.get("filterGroups") or []
    query = str(body.get("query") or "").lower()
    rows = [r for r in call.state.rows(table)
            if (not groups or any(all(_holds(r, f) for f in g.get("filters") or []) for g in groups))
            and (not query or any(query in str(v).lower() for v in (r.get("properties") or {}).values()))]
    for sort in reversed(body.get("sorts") or []):
        name = sort.get("propertyName") if isinstance(sort, dict) else str(sort)
        rows.sort(key=lambda r: str((r.get("properties") or {}).get(name) or ""),
                  reverse=isinstance(sort, dict) and sort.get("direction") == "DESCENDING")
    start = int(body["after"]) if str(body.get("after") or "").isdigit() else 0
    size = max(1, min(int(body.get("limit") or 10), 200))
    schema = resources.schemas.resolve(resources.response(call.operation.short_id)[1])
    item = schema["properties"]["results"]["items"]
    page = {"total": len(rows), "results": [resources.present(call, r, item) for r in rows[start:start + size]]}
    if start + size < len(rows):
        page["paging"] = {"next": {"after": str(start + size)}}
    return page


HANDLERS = {name: handler for path, key in (("contacts", "contactId"), ("companies", "companyId"), ("0-3", "dealId"))
            for name, handler in ((f"post-/crm/v3/objects/{path}_create", create),
                                  (f"post-/crm/v3/objects/{path}/search_doSearch", search),
                                  (f"patch-/crm/v3/objects/{path}/{{{key}}}_update", update))}

# Credentials: a private app's access token.
credentials = issuer("pat-na1-", {"HUBSPOT_ACCESS_TOKEN": "{token}"})
