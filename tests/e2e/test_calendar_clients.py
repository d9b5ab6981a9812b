"""Google's own Python client (google-api-python-client with google-auth credentials), run
unmodified in a sandbox, reaches the environment's Calendar replica through the proxy:
calendars, ACL, single and recurring events with an exception, instances, freebusy, a batch,
and a token refresh against oauth2.googleapis.com; the diff shows what it did."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ISOLATING, needs_docker, needs_namespaces
from tests.e2e.official_clients import run_node_client

AGENT = r'''
import json
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
from googleapiclient.errors import HttpError

# A refresh token only: the client asks oauth2.googleapis.com for an access token first.
creds = Credentials(None, refresh_token="1//refresh", client_id="id.apps.googleusercontent.com",
                    client_secret="secret", token_uri="https://oauth2.googleapis.com/token")
cal = build("calendar", "v3", credentials=creds)
out = {}
out["calendars"] = sorted(c["summary"] for c in cal.calendarList().list().execute()["items"])[:3]
new = cal.calendars().insert(body={"summary": "Cosmic Voyagers HQ", "timeZone": "America/Los_Angeles"}).execute()
cal.acl().insert(calendarId=new["id"], body={"role": "writer", "scope": {"type": "user", "value": "yuki@test.com"}}).execute()
single = cal.events().insert(calendarId=new["id"], body={
    "summary": "Perseid Meteor Shower Watch Party", "location": "Hillcrest Observatory Field",
    "start": {"dateTime": "2018-06-24T00:00:00", "timeZone": "America/Los_Angeles"},
    "end": {"dateTime": "2018-06-24T03:00:00", "timeZone": "America/Los_Angeles"},
    "attendees": [{"email": "yuki@test.com"}]}, sendUpdates="all").execute()
weekly = cal.events().insert(calendarId=new["id"], body={
    "summary": "Telescope night", "recurrence": ["RRULE:FREQ=WEEKLY;COUNT=4"],
    "start": {"dateTime": "2018-06-25T21:00:00", "timeZone": "America/Los_Angeles"},
    "end": {"dateTime": "2018-06-25T22:00:00", "timeZone": "America/Los_Angeles"}}).execute()
instances = cal.events().instances(calendarId=new["id"], eventId=weekly["id"]).execute()["items"]
out["instances"] = [i["start"]["dateTime"] for i in instances]
cal.events().patch(calendarId=new["id"], eventId=instances[1]["id"], body={"summary": "Telescope night (moved)",
    "start": {"dateTime": "2018-07-03T20:00:00", "timeZone": "America/Los_Angeles"},
    "end": {"dateTime": "2018-07-03T21:00:00", "timeZone": "America/Los_Angeles"}}).execute()
listed = cal.events().list(calendarId=new["id"], singleEvents=True, orderBy="startTime",
                           timeMin="2018-06-01T00:00:00Z", timeMax="2018-08-01T00:00:00Z").execute()
out["listed"] = [(e["summary"], e["start"]["dateTime"]) for e in listed["items"]]
busy = cal.freebusy().query(body={"timeMin": "2018-06-24T00:00:00-07:00", "timeMax": "2018-06-24T06:00:00-07:00",
                                  "items": [{"id": new["id"]}]}).execute()
out["busy"] = busy["calendars"][new["id"]]["busy"]
answers = []
batch = cal.new_batch_http_request(callback=lambda rid, response, error: answers.append(
    (rid, response["summary"] if response else None, error.resp.status if error else None)))
batch.add(cal.events().get(calendarId=new["id"], eventId=single["id"]), request_id="got")
batch.add(cal.events().get(calendarId=new["id"], eventId="nosuchevent"), request_id="missing")
batch.execute()
out["batch"] = sorted(answers)
cal.events().delete(calendarId=new["id"], eventId=single["id"]).execute()
try:
    cal.events().get(calendarId="no-such-calendar", eventId="x").execute()
except HttpError as e:
    out["error"] = [e.resp.status, json.loads(e.content)["error"]["errors"][0]["reason"]]
out["token"] = creds.token.split(".")[:2]
print(json.dumps(out))
'''


# google-api-python-client on the isolating backends: on the process backend the same program
# (httplib2 through the proxy) is test_drive_clients'; curl there is test_cli's command mode and
# test_auditing's. The npm googleapis keeps its process run: the process backend's official
# Node client.
@pytest.mark.parametrize("backend", ISOLATING)
def test_google_api_python_client_through_the_proxy(live_stack, backend):
    env = live_stack.env("calendar_default")
    result = live_stack.run(env, AGENT, ".py", backend=backend)
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["instances"] == ["2018-06-25T21:00:00-07:00", "2018-07-02T21:00:00-07:00",
                                "2018-07-09T21:00:00-07:00", "2018-07-16T21:00:00-07:00"]
    assert out["listed"] == [["Perseid Meteor Shower Watch Party", "2018-06-24T00:00:00-07:00"],  # offsets added
                             ["Telescope night", "2018-06-25T21:00:00-07:00"],
                             ["Telescope night (moved)", "2018-07-03T20:00:00-07:00"],
                             ["Telescope night", "2018-07-09T21:00:00-07:00"],
                             ["Telescope night", "2018-07-16T21:00:00-07:00"]]
    assert out["busy"] == [{"start": "2018-06-24T07:00:00Z", "end": "2018-06-24T10:00:00Z"}]
    assert out["batch"] == [["got", "Perseid Meteor Shower Watch Party", None], ["missing", None, 404]]
    assert out["error"] == [404, "notFound"]
    assert out["token"] == ["ya29", "detour"]
    assert {r.service for r in result.requests} == {"calendar"}
    assert {r.host for r in result.requests} == {"oauth2.googleapis.com", "www.googleapis.com"}
    tables = [(row["__table__"], row.get("summary") or row.get("scope_value") or row.get("email"))
              for row in result.diff.inserts]
    assert ("calendars", "Cosmic Voyagers HQ") in tables and ("calendar_acl_rules", "yuki@test.com") in tables
    assert ("calendar_event_attendees", "yuki@test.com") in tables
    assert ("calendar_events", "Telescope night (moved)") in tables  # the exception, a row of its own
    cancelled = [u["after"]["summary"] for u in result.diff.updates
                 if u["__table__"] == "calendar_events" and u["after"]["status"] == "cancelled"]
    assert cancelled == []  # the deleted event was created in this run: it is an insert, cancelled
    assert [row["status"] for row in result.diff.inserts if row.get("summary") == "Perseid Meteor Shower Watch Party"] \
        == ["cancelled"]


NODE_AGENT = r'''
import { google } from "googleapis";
const auth = new google.auth.OAuth2("id.apps.googleusercontent.com", "secret");
auth.setCredentials({ refresh_token: "1//refresh" });  // refreshed against oauth2.googleapis.com
const calendar = google.calendar({ version: "v3", auth });
const out = {};
out.primary = (await calendar.calendarList.list()).data.items.find((c) => c.primary).id;
const made = await calendar.events.insert({ calendarId: "primary", sendUpdates: "none", requestBody: {
  summary: "Node standup", recurrence: ["RRULE:FREQ=DAILY;COUNT=3"],
  start: { dateTime: "2018-07-02T09:00:00", timeZone: "America/Los_Angeles" },
  end: { dateTime: "2018-07-02T09:15:00", timeZone: "America/Los_Angeles" } } });
const instances = await calendar.events.instances({ calendarId: "primary", eventId: made.data.id });
out.instances = instances.data.items.map((i) => i.start.dateTime);
await calendar.acl.insert({ calendarId: "primary", requestBody: { role: "reader", scope: { type: "user", value: "yuki@test.com" } } });
try {
  await calendar.events.get({ calendarId: "primary", eventId: "nosuchevent" });
} catch (e) {
  out.error = [e.status ?? e.code, e.response?.data?.error?.errors?.[0]?.reason];
}
console.log(JSON.stringify(out));
'''


@pytest.mark.parametrize("backend", ["process", pytest.param("namespace", marks=needs_namespaces),
                                     pytest.param("docker", marks=needs_docker)])
def test_npm_googleapis_through_the_proxy(live_stack, backend, request):
    """Google's Node client; on the docker backend in an image derived with it."""
    result = run_node_client(live_stack, request, backend, "googleapis", NODE_AGENT, "calendar_default")
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out == {"primary": "test.user@test.com", "error": [404, "notFound"], "instances": [
        "2018-07-02T09:00:00-07:00", "2018-07-03T09:00:00-07:00", "2018-07-04T09:00:00-07:00"]}
    assert {r.host for r in result.requests} == {"oauth2.googleapis.com", "www.googleapis.com"}
    assert [row["scope_value"] for row in result.diff.inserts if row["__table__"] == "calendar_acl_rules"] \
        == ["yuki@test.com"]

CURL_AGENT = r'''
set -e
base=https://www.googleapis.com/calendar/v3
auth="Authorization: Bearer $(curl -s -d grant_type=refresh_token -d refresh_token=r https://oauth2.googleapis.com/token \
      | sed 's/.*"access_token":"\([^"]*\)".*/\1/')"
curl -s -H "$auth" "$base/users/me/calendarList?fields=items(id)&maxResults=1"; echo
curl -s -H "$auth" -H 'Content-Type: application/json' "$base/calendars/primary/events?fields=summary,start" \
     -d '{"summary": "From curl", "start": {"date": "2018-07-04"}, "end": {"date": "2018-07-05"}}'; echo
curl -s -o /dev/null -w '%{http_code}\n' -H "$auth" "$base/calendars/primary/events/missing"
'''


@pytest.mark.parametrize("backend", ISOLATING)
def test_curl_through_the_proxy(live_stack, backend):
    env = live_stack.env("calendar_default")
    result = live_stack.run(env, CURL_AGENT, ".sh", backend=backend)
    assert result.exit_code == 0, result.stderr
    listed, created, missing = result.stdout.splitlines()
    assert json.loads(listed) == {"items": [{"id": "test.user@test.com"}]}
    assert json.loads(created) == {"summary": "From curl", "start": {"date": "2018-07-04"}}
    assert missing == "404"
    assert [row["summary"] for row in result.diff.inserts] == ["From curl"]


GOOGLES_READING = r'''
import json
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
from googleapiclient.errors import HttpError
cal = build("calendar", "v3", credentials=Credentials("token"))
out = {}
quick = cal.events().quickAdd(calendarId="primary", text="Appointment at Somewhere on June 3rd 10am-10:25am").execute()
out["quick"] = [quick["summary"], quick["start"]["dateTime"][5:], quick["end"]["dateTime"][5:]]
out["watched"] = [cal.events().watch(calendarId="primary", body={"id": "ch-events", "type": "web_hook",
                                     "address": "https://example.com/hook"}).execute()["resourceUri"],
                  cal.calendarList().watch(body={"id": "ch-list", "type": "web_hook",
                                                 "address": "https://example.com/hook"}).execute()["resourceUri"]]
fetched = cal.events().get(calendarId="primary", eventId="event_failed_rocket").execute()
out["same"] = cal.events().update(calendarId="primary", eventId="event_failed_rocket", body=fetched).execute()["etag"] \
    == fetched["etag"]
doomed = cal.calendars().insert(body={"summary": "Short-lived"}).execute()
cal.calendars().delete(calendarId=doomed["id"]).execute()
try:
    cal.calendars().get(calendarId=doomed["id"]).execute()
except HttpError as e:
    out["after_delete"] = e.resp.status
print(json.dumps(out))
'''


def test_quick_add_deleted_calendars_watch_and_update_as_google_does(live_stack):
    """quickAdd reads the time out of the text (answered with its offset); a deleted calendar
    keeps its row, marked, and is 404 after; a channel's resourceUri is the URL watched (its
    row keeps AgentDiff's path); updating an event with itself as
    fetched changes nothing."""
    result = live_stack.run(live_stack.env("calendar_default"), GOOGLES_READING, ".py")
    assert result.exit_code == 0, result.stderr[-2000:]
    out = json.loads(result.stdout)
    assert out["quick"] == ["Appointment at Somewhere", "06-03T10:00:00-07:00", "06-03T10:25:00-07:00"]
    assert out["watched"] == ["https://www.googleapis.com/calendar/v3/calendars/primary/events",
                              "https://www.googleapis.com/calendar/v3/users/me/calendarList"]
    assert [r["resource_uri"] for r in result.diff.inserts if r["__table__"] == "calendar_channels"] == [
        "/calendars/test.user@test.com/events", "/users/me/calendarList"]  # AgentDiff's rows
    assert out["same"] is True and out["after_delete"] == 404
    assert not [u for u in result.diff.updates if u["__table__"] == "calendar_events"]
    [deleted] = [r for r in result.diff.inserts if r["__table__"] == "calendars"]
    assert deleted["summary"] == "Short-lived" and deleted["deleted"] is True
    assert not result.diff.deletes
