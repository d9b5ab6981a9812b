"""Google People (Contacts) over the pack generated from its discovery document
(google-api-python-client's people.v1.json): the acting user's contacts are rows of
`people_contacts`, each a Person as the API answers it (`resourceName` `people/c…`, names, email
addresses, phone numbers, organizations); they are created, read, listed as the user's
connections, searched, updated by `updatePersonFields` and deleted. The fields an answer holds
are the ones `personFields` (or `readMask`) names, which Google requires."""

from __future__ import annotations

from typing import Any

from mock_services import clock
from mock_services.rest.errors import RestError
from mock_services.rest.google import generated_error_body as error_body
from mock_services.rest.openapi import styles
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import Call
from mock_services.store import Row

TABLE = "people_contacts"
ID_STYLE = {"kind": "numeric", "digits": 19, "as": "string"}
FIELDS = {"addresses", "biographies", "birthdays", "emailAddresses", "names", "nicknames", "organizations",
          "phoneNumbers", "urls", "userDefined", "memberships", "metadata", "relations", "events"}


def _mask(call: Call, name: str = "personFields") -> set[str]:
    given = call.params.get(name) or call.params.get("readMask") or ""
    fields = {f.strip() for f in given.split(",") if f.strip()}
    if not fields:
        raise RestError(400, "badRequest", f"{name} mask is required. Please specify one or more valid paths. "
                                           "Valid paths are documented at "
                                           "https://developers.google.com/people/api/rest/v1/people/get.")
    return fields


def shown(row: Row, fields: set[str]) -> dict:
    """A contact as the API answers it: its resource name and etag, then the fields asked for."""
    return {"resourceName": row["resourceName"], "etag": row["etag"],
            **{k: v for k, v in row.items() if k in fields and v}}


def _named(names: list[dict]) -> list[dict]:
    """Names get their displayName, as Google derives it."""
    return [{**n, "displayName": n.get("displayName") or " ".join(p for p in (n.get("givenName"),
                                                                             n.get("familyName")) if p)}
            for n in names]


def _etag() -> str:
    """A new version's etag, drawn from the environment's seed (Google's look: `%` and base64)."""
    return "%" + clock.token_hex(9)


def _contact(call: Call) -> Row:
    name = f"people/{call.params['peopleId']}"
    row = call.state.first(TABLE, resourceName=name)
    if row is None:
        raise RestError(404, "notFound", "Requested entity was not found.")
    return row


def create_contact(resources: Resources, call: Call) -> Any:
    body = resources.body(call)
    number = styles.new_id(ID_STYLE, {r["id"] for r in call.state.rows(TABLE)})
    row = {k: v for k, v in body.items() if k in FIELDS}
    row["names"] = _named(row.get("names") or [])
    row.update({"id": number, "resourceName": f"people/c{number}", "etag": _etag()})
    call.state.insert(TABLE, row)
    return shown(row, _mask(call) if call.params.get("personFields") else FIELDS)


def get_person(resources: Resources, call: Call) -> Any:
    return shown(_contact(call), _mask(call))


def get_batch(resources: Resources, call: Call) -> Any:
    """Each name asked for, found or not, as Google answers a batch (a 404 inside for a missing one)."""
    fields, answers = _mask(call), []
    for name in call.params.get("resourceNames") or []:
        row = call.state.first(TABLE, resourceName=name)
        answers.append({"requestedResourceName": name, "httpStatusCode": 200, "person": shown(row, fields)} if row else
                       {"requestedResourceName": name, "httpStatusCode": 404,
                        "status": {"code": 5, "message": "Requested entity was not found."}})
    return {"responses": answers}


def connections(resources: Resources, call: Call) -> Any:
    if call.params["peopleId"] != "me":
        raise RestError(403, "forbidden", "The caller does not have permission")
    fields = _mask(call)
    rows = sorted(call.state.rows(TABLE), key=lambda r: ((r.get("names") or [{}])[0].get("familyName") or "").lower())
    chosen, beside, _ = styles.page(rows, {"paging": "cursor", "page_size": "pageSize"}, call.params, "")
    answer = {"connections": [shown(r, fields) for r in chosen], "totalPeople": len(rows), "totalItems": len(rows)}
    return {**answer, "nextPageToken": beside["nextPageToken"]} if beside["nextPageToken"] else answer


def _text(row: Row) -> str:
    return " ".join(str(v.get(k, "")) for field in ("names", "emailAddresses", "phoneNumbers", "organizations")
                    for v in row.get(field) or [] for k in ("displayName", "value", "name")).lower()


def search(resources: Resources, call: Call) -> Any:
    """Contacts with a name, email, phone or organization word starting with the query, as Google matches."""
    fields, query = _mask(call, "readMask"), str(call.params.get("query") or "").lower()
    found = [r for r in call.state.rows(TABLE) if any(word.startswith(query) for word in _text(r).split())]
    return {"results": [{"person": shown(r, fields)} for r in found[:int(call.params.get("pageSize") or 10)]]} \
        if found else {}


def update_contact(resources: Resources, call: Call) -> Any:
    row, body = _contact(call), resources.body(call)
    fields = {f.strip() for f in str(call.params.get("updatePersonFields") or "").split(",") if f.strip()}
    if not fields or fields - FIELDS:
        raise RestError(400, "badRequest", "updatePersonFields mask is required and must name person fields")
    if body.get("etag") and body["etag"] != row["etag"]:
        raise RestError(400, "failedPrecondition", "Request person.etag is different than the current person.etag. "
                                                   "Clear local cache and get the latest person.")
    changed = {**row, **{f: _named(body.get(f) or []) if f == "names" else body.get(f) or [] for f in fields}}
    changed["etag"] = _etag()
    call.state.update(TABLE, changed)
    return shown(changed, _mask(call) if call.params.get("personFields") else FIELDS)


def delete_contact(resources: Resources, call: Call) -> Any:
    call.state.delete(TABLE, _contact(call))
    return {}


HANDLERS = {"people.people.createContact": create_contact, "people.people.get": get_person,
            "people.people.getBatchGet": get_batch,
            "people.people.connections.list": connections, "people.people.searchContacts": search,
            "people.people.updateContact": update_contact, "people.people.deleteContact": delete_contact}

__all__ = ["HANDLERS", "error_body"]
