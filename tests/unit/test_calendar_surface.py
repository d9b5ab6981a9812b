"""The Calendar replica against Calendar v3's discovery document: the committed spec is what
the installed google-api-python-client ships, every method has a handler, and every method,
called as a client would, answers in the document's shape (known fields, right types) or in
Google's error shape."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from detour.apps.server import create_app
from mock_services.calendar.router import API, SPEC_FILE
from mock_services.rest.discovery import generate, installed_document
from mock_services.store import EnvironmentStore
from tests.fidelity import google_shapes

AUTH = {"Authorization": "Bearer ya29.test"}
SEED_ARGS = {"calendarId": "cal_dungeon_masters", "eventId": "evt_dungeon_boardgame_brawl",
             "ruleId": "user:shape@test.com", "setting": "timezone", "destination": "test.user@test.com",
             "text": "Tea at noon", "newDataOwner": "yuki@test.com", "useAdminAccess": "false"}
WHEN = {"dateTime": "2018-06-30T10:00:00", "timeZone": "America/Los_Angeles"}
UNTIL = {"dateTime": "2018-06-30T11:00:00", "timeZone": "America/Los_Angeles"}
BODIES = {
    "Calendar": {"summary": "Shape check", "timeZone": "Europe/Paris"},
    "CalendarListEntry": {"id": "cal_dungeon_masters", "colorId": "5"},
    "AclRule": {"role": "reader", "scope": {"type": "user", "value": "shape@test.com"}},
    "Event": {"summary": "Shape", "start": WHEN, "end": UNTIL, "iCalUID": "shape@test.com",
              "attendees": [{"email": "yuki@test.com"}]},
    "FreeBusyRequest": {"timeMin": "2018-06-01T00:00:00Z", "timeMax": "2018-07-01T00:00:00Z",
                        "items": [{"id": "test.user@test.com"}]},
}


def conforms(value, schema: dict, path: str = "") -> list[str]:
    return google_shapes.conforms(value, schema, API.spec.schemas, path)


@pytest.fixture
def calendar(state):
    env = EnvironmentStore(state).create("calendar_default").env_id
    client = TestClient(create_app(state, api_auth=False))
    return client, f"/api/env/{env}/services/calendar"


def test_the_committed_spec_is_the_installed_discovery_document():
    assert SPEC_FILE.read_text() == generate(installed_document("calendar", "v3")), \
        "run: python -m mock_services.rest.discovery calendar v3 " + str(SPEC_FILE)


def test_every_method_of_the_document_has_a_handler():
    document = json.loads(generate(installed_document("calendar", "v3")))
    assert len(document["operations"]) >= 37  # AgentDiff's replica has 37; this document's revision more
    assert API.missing() == []
    assert {o["id"].split(".", 1)[1] for o in document["operations"]} == set(API.handlers)


@pytest.mark.parametrize("operation", API.spec.operations, ids=lambda o: o.id)
def test_every_method_answers_in_the_documents_shape(calendar, operation):
    client, base = calendar
    path = operation.path
    for name in [p.name for p in operation.parameters.values() if p.location == "path"]:
        path = path.replace("{" + name + "}", SEED_ARGS[name])
    query = {p.name: SEED_ARGS[p.name] for p in operation.required() if p.location == "query"}
    body = BODIES.get(operation.request)
    if operation.request == "Channel":
        body = {"id": f"chan-{operation.short_id}", "type": "web_hook", "address": "https://hooks.test/cb"}
    if operation.id == "calendar.channels.stop":
        watched = client.post(f"{base}/calendar/v3/users/me/settings/watch", headers=AUTH,
                              json={"id": "to-stop", "type": "web_hook", "address": "https://hooks.test/cb"}).json()
        body = {"id": watched["id"], "resourceId": watched["resourceId"]}
    if operation.short_id in ("acl.get", "acl.patch", "acl.update", "acl.delete"):
        client.post(f"{base}/calendar/v3/calendars/cal_dungeon_masters/acl", json=BODIES["AclRule"], headers=AUTH)
    response = client.request(operation.method, f"{base}/calendar/v3/{path}", params=query, json=body, headers=AUTH)
    assert response.status_code in (200, 204), response.text
    if operation.response:
        answer = response.json()
        assert conforms(answer, {"$ref": operation.response}) == []
        kind = API.spec.schemas[operation.response].get("properties", {}).get("kind")
        if kind:
            assert "kind" in answer


def test_errors_are_googles_shape_and_never_a_500(calendar):
    client, base = calendar
    cases = [("GET", "calendars/nope", None, 404, "notFound"),
             ("GET", "calendars/primary/events?maxResults=x", None, 400, "invalid"),
             ("GET", "calendars/primary/events?orderBy=sideways", None, 400, "invalid"),
             ("GET", "calendars/primary/events?orderBy=startTime", None, 400, "invalid"),
             ("POST", "calendars/primary/events", {"summary": "no times"}, 400, "required"),
             ("POST", "calendars/primary/events/evt_dungeon_boardgame_brawl/move", None, 400, "required"),
             ("GET", "no/such/path", None, 404, "notFound")]
    for method, path, body, status, reason in cases:
        response = client.request(method, f"{base}/calendar/v3/{path}", json=body, headers=AUTH)
        error = response.json()["error"]
        assert (response.status_code, error["code"], error["errors"][0]["reason"]) == (status, status, reason), path
        assert error["message"] and error["errors"][0]["domain"] == "global"
