"""The Calendar replica's rules, against AgentDiff's calendar_default seed: who may see and
change what, series and their exceptions, sync tokens, etags, partial responses, budgets."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from detour.apps.server import create_app
from mock_services.request_budget import RequestBudget
from mock_services.rest.google import issue_token
from mock_services.store import EnvironmentStore

AUTH = {"Authorization": "Bearer ya29.test"}
SLOT = {"start": {"dateTime": "2018-06-30T10:00:00-07:00"}, "end": {"dateTime": "2018-06-30T11:00:00-07:00"}}


@pytest.fixture
def api(state):
    store = EnvironmentStore(state)
    env = store.create("calendar_default").env_id
    client = TestClient(create_app(state, api_auth=False))
    base = f"/api/env/{env}/services/calendar/calendar/v3"

    def call(method: str, path: str, headers: dict | None = None, **kwargs):
        return client.request(method, base + path, headers={**AUTH, **(headers or {})}, **kwargs)
    call.store, call.env = store, env
    return call


def as_user(user_id: str) -> dict:
    return {"Authorization": f"Bearer {issue_token(user_id)}"}


def test_roles_decide_what_a_user_sees_and_changes(api):
    new = api("POST", "/calendars", json={"summary": "Guild"}).json()["id"]
    for email, role in (("yuki@test.com", "reader"), ("amara@test.com", "freeBusyReader")):
        api("POST", f"/calendars/{new}/acl", json={"role": role, "scope": {"type": "user", "value": email}})
    api("POST", f"/calendars/{new}/events", json={"summary": "Secret plan", **SLOT})
    yuki, amara = as_user("user_yuki"), as_user("user_amara")
    assert [e["summary"] for e in api("GET", f"/calendars/{new}/events", yuki).json()["items"]] == ["Secret plan"]
    assert api("POST", f"/calendars/{new}/events", yuki, json={"summary": "x", **SLOT}).status_code == 403
    assert api("GET", f"/calendars/{new}/acl", yuki).status_code == 403
    limited = api("GET", f"/calendars/{new}/events", amara).json()["items"][0]
    assert "summary" not in limited and limited["start"] == SLOT["start"]
    assert api("GET", f"/calendars/{new}/events", as_user("user_kenji")).status_code == 404


def test_a_series_expands_and_an_exception_replaces_one_occurrence(api):
    weekly = api("POST", "/calendars/primary/events", json={
        "summary": "Standup", "recurrence": ["RRULE:FREQ=WEEKLY;COUNT=3", "EXDATE;TZID=America/Los_Angeles:20180709T090000"],
        "start": {"dateTime": "2018-07-02T09:00:00", "timeZone": "America/Los_Angeles"},
        "end": {"dateTime": "2018-07-02T09:30:00", "timeZone": "America/Los_Angeles"}}).json()
    instances = api("GET", f"/calendars/primary/events/{weekly['id']}/instances").json()["items"]
    assert [i["start"]["dateTime"] for i in instances] == ["2018-07-02T09:00:00-07:00", "2018-07-16T09:00:00-07:00"]
    assert instances[1]["id"] == f"{weekly['id']}_20180716T160000Z" and instances[1]["recurringEventId"] == weekly["id"]
    api("DELETE", f"/calendars/primary/events/{instances[0]['id']}")
    listed = api("GET", "/calendars/primary/events", params={
        "singleEvents": "true", "timeMin": "2018-07-01T00:00:00Z", "timeMax": "2018-07-31T00:00:00Z",
        "q": "standup"}).json()["items"]
    assert [i["start"]["dateTime"] for i in listed] == ["2018-07-16T09:00:00-07:00"]
    exception = api("GET", f"/calendars/primary/events/{instances[0]['id']}").json()
    assert exception["status"] == "cancelled" and exception["originalStartTime"]["dateTime"].startswith("2018-07-02")


def test_sync_tokens_return_what_changed_and_expire_to_410(api):
    first = api("GET", "/calendars/primary/events", params={"maxResults": 2500}).json()
    api("POST", "/calendars/primary/events", json={"summary": "After sync", **SLOT})
    changed = api("GET", "/calendars/primary/events", params={"syncToken": first["nextSyncToken"]}).json()
    assert [e["summary"] for e in changed["items"]] == ["After sync"]
    gone = api("GET", "/calendars/primary/events", params={"syncToken": "not-a-token"})
    assert gone.status_code == 410 and gone.json()["error"]["errors"][0]["reason"] == "fullSyncRequired"
    mixed = api("GET", "/calendars/primary/events", params={"syncToken": first["nextSyncToken"], "q": "x"})
    assert mixed.status_code == 400


def test_paging_etags_partial_responses_and_put_versus_patch(api):
    page = api("GET", "/calendars/cal_dungeon_masters/events", params={"maxResults": 2}).json()
    rest = api("GET", "/calendars/cal_dungeon_masters/events",
               params={"maxResults": 2, "pageToken": page["nextPageToken"]}).json()
    assert len(page["items"]) == 2 and {e["id"] for e in page["items"]}.isdisjoint(e["id"] for e in rest["items"])
    event = api("POST", "/calendars/primary/events", json={"summary": "Etag", "location": "Here", **SLOT}).json()
    stale = api("PATCH", f"/calendars/primary/events/{event['id']}", {"If-Match": '"stale"'}, json={"summary": "x"})
    assert stale.status_code == 412 and stale.json()["error"]["errors"][0]["reason"] == "conditionNotMet"
    patched = api("PATCH", f"/calendars/primary/events/{event['id']}", {"If-Match": event["etag"]},
                  json={"summary": "Patched"}, params={"fields": "summary,location"}).json()
    assert patched == {"summary": "Patched", "location": "Here"}
    replaced = api("PUT", f"/calendars/primary/events/{event['id']}", json={"summary": "Put", **SLOT}).json()
    assert "location" not in replaced  # a replacement clears what it leaves out


def test_the_acting_user_comes_from_the_token(api):
    theirs = api("GET", "/users/me/calendarList", as_user("user_oleksandra")).json()["items"]
    assert [(e["id"], e["accessRole"]) for e in theirs] == [("oleksandra@test.com", "owner")]
    assert len(api("GET", "/users/me/calendarList").json()["items"]) > 30  # the acting user's, by default
    created = api("POST", "/calendars", as_user("user_yuki"), json={"summary": "Yuki's"}).json()
    owner = api.store.diff(api.env).inserts[0]
    assert owner["__table__"] == "calendars" and owner["owner_id"] == "user_yuki" and owner["id"] == created["id"]


def test_a_spent_budget_answers_429_rate_limit_exceeded(api):
    api.store.set_request_budget(api.env, RequestBudget(requests=2, per_seconds=60))
    codes = [api("GET", "/colors").status_code for _ in range(3)]
    last = api("GET", "/colors")
    assert codes == [200, 200, 429] and last.headers["Retry-After"]
    assert last.json()["error"]["errors"][0] == {"domain": "usageLimits", "reason": "rateLimitExceeded",
                                                 "message": "Rate Limit Exceeded"}


def test_deletes_keep_rows_as_agentdiff_records_them(api):
    api("DELETE", "/calendars/cal_dungeon_masters/events/evt_dungeon_boardgame_brawl")
    api("POST", "/calendars/cal_dungeon_masters/acl", json={"role": "reader", "scope": {"type": "user", "value": "z@test.com"}})
    api("DELETE", "/calendars/cal_dungeon_masters/acl/user:z@test.com")
    diff = api.store.diff(api.env)
    assert [(u["__table__"], u["after"]["status"]) for u in diff.updates] == [("calendar_events", "cancelled")]
    assert [(i["__table__"], i["deleted"]) for i in diff.inserts] == [("calendar_acl_rules", True)]
    again = api("DELETE", "/calendars/cal_dungeon_masters/events/evt_dungeon_boardgame_brawl")
    assert again.status_code == 410


def test_watch_rows_keep_agentdiffs_paths_while_answers_give_googles_urls(api):
    """The rows a diff shows keep AgentDiff's `resource_uri` (the path, ids resolved), which
    its suites assert on; the answer's `resourceUri` is the URL the request watched."""
    hook = {"type": "web_hook", "address": "https://hooks.example.com/x"}
    watched = [api("POST", path, json={"id": f"ch-{n}", **hook}).json()["resourceUri"] for n, path in enumerate(
        ("/users/me/settings/watch", "/calendars/primary/events/watch", "/calendars/primary/acl/watch",
         "/users/me/calendarList/watch"))]
    google = "https://www.googleapis.com/calendar/v3"
    assert watched == [f"{google}/users/me/settings", f"{google}/calendars/primary/events",
                       f"{google}/calendars/primary/acl", f"{google}/users/me/calendarList"]
    rows = [i["resource_uri"] for i in api.store.diff(api.env).inserts if i["__table__"] == "calendar_channels"]
    assert rows == ["/users/user_agent/settings", "/calendars/test.user@test.com/events",
                    "/calendars/test.user@test.com/acl", "/users/me/calendarList"]


def test_every_write_of_a_zone_less_time_adds_its_utc_offset(api):
    """insert, patch, update and quickAdd: a dateTime with no offset, given with a timeZone (or
    in the calendar's zone), is kept and answered with the offset of that zone at that time."""
    def local(day: str, zone: str = "Europe/Kyiv") -> dict:
        return {"dateTime": f"{day}T09:00:00", "timeZone": zone}
    made = api("POST", "/calendars/primary/events", json={"summary": "a", "start": local("2018-07-02"),
                                                         "end": local("2018-07-02")}).json()
    patched = api("PATCH", f"/calendars/primary/events/{made['id']}", json={"start": local("2018-01-02"),
                                                                            "end": local("2018-01-02")}).json()
    replaced = api("PUT", f"/calendars/primary/events/{made['id']}", json={  # in the calendar's zone
        "summary": "b", "start": {"dateTime": "2018-12-01T08:00:00"}, "end": {"dateTime": "2018-12-01T09:00"}}).json()
    quick = api("POST", "/calendars/primary/events/quickAdd", params={"text": "Pigeon letter Sep 10, 2018 9am"}).json()
    assert [made["start"]["dateTime"], patched["start"]["dateTime"], replaced["start"]["dateTime"],
            quick["start"]["dateTime"], quick["end"]["dateTime"]] == [
        "2018-07-02T09:00:00+03:00", "2018-01-02T09:00:00+02:00", "2018-12-01T08:00:00-08:00",
        "2018-09-10T09:00:00-07:00", "2018-09-10T10:00:00-07:00"]
    rows = {(r["summary"], r["start"]["dateTime"], r["start_datetime"]) for r in api.store.diff(api.env).inserts
            if r["__table__"] == "calendar_events"}
    assert rows == {("b", "2018-12-01T08:00:00-08:00", "2018-12-01T08:00:00"),
                    ("Pigeon letter", "2018-09-10T09:00:00-07:00", "2018-09-10T09:00:00")}
