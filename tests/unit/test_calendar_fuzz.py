"""Every Calendar method driven with random and malformed parameters and bodies (uploads of
garbage included): never a 5xx, always Google's error shape when it fails."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mock_services.calendar.router import API
from tests.fidelity.google_shapes import random_call
from tests.unit.google_fuzz import json_values, served_replica

NAMES = sorted({n for o in API.spec.operations for n in o.parameters} | {
    "summary", "start", "end", "dateTime", "date", "timeZone", "recurrence", "attendees", "email", "role",
    "scope", "type", "value", "items", "id", "timeMin", "timeMax", "address", "resourceId", "colorId"})
values = json_values(NAMES, ["primary", "cal_dungeon_masters", "2018-06-30T10:00:00Z", "2018-06-30",
                             "America/Los_Angeles", "Mars/Olympus", "RRULE:FREQ=DAILY;COUNT=3",
                             "RRULE:FREQ=WEEKLY;UNTIL=20180701", "EXDATE:2018x", "user:a@b", "owner",
                             "evt_dungeon_boardgame_brawl_20180619T020000Z", "-1", "startTime", ""])


@pytest.fixture(scope="module")
def replica(tmp_path_factory):
    return served_replica(tmp_path_factory, "calendar_default", "calendar")


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(operation=st.sampled_from(API.spec.operations),
       path_values=st.lists(st.sampled_from(["primary", "cal_dungeon_masters", "evt_dungeon_boardgame_brawl",
                                             "user:test.user@test.com", "timezone", "%00", "..", "x" * 300]),
                            min_size=3, max_size=3),
       query=st.dictionaries(st.sampled_from(NAMES), st.text(max_size=20), max_size=5),
       body=st.one_of(values, st.binary(max_size=60)))
def test_random_calls(replica, operation, path_values, query, body):
    client, base = replica
    random_call(client, f"{base}/calendar/v3", operation, path_values, query, body)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.binary(max_size=300), boundary=st.sampled_from(["b", "batch_x", ""]))
def test_random_batches(replica, body, boundary):
    client, base = replica
    response = client.post(f"{base}/batch/calendar/v3", content=body,
                           headers={"Content-Type": f"multipart/mixed; boundary={boundary}"})
    assert response.status_code < 500, response.text
