"""events.list, events.get and events.instances: a calendar's events as Google lists them,
recurring series expanded into instances (with their exceptions) where asked, filtered by
time, text, deletion and update, paged, and followed by sync tokens."""

from __future__ import annotations

import base64
import json
from datetime import datetime

from mock_services.calendar import access, recurrence
from mock_services.calendar.handlers.paging import page
from mock_services.calendar.resources import drop_none, event_json, new_etag
from mock_services.calendar.times import local_column, moment, now_text, parse_instant, shifted, updated_text
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row

SYNC_EXCLUSIVE = ("timeMin", "timeMax", "q", "orderBy", "iCalUID", "updatedMin", "privateExtendedProperty",
                  "sharedExtendedProperty")
FREE_BUSY_FIELDS = ("kind", "etag", "id", "status", "start", "end", "transparency")


def serialize(call: Call, row: Row, role: str = "owner") -> dict:
    return serialize_all(call, [row], role)[0]


def serialize_all(call: Call, rows: list[Row], role: str = "owner") -> list[dict]:
    """Events as resources, their attendees read in one query for the lot."""
    attendees: dict[str, list[Row]] = {}
    for attendee in call.state.rows_in("calendar_event_attendees", "event_id", sorted({r["id"] for r in rows})):
        attendees.setdefault(attendee["event_id"], []).append(attendee)
    email = access.user_email(call)
    resources = [event_json(row, attendees.get(row["id"], []), email) for row in rows]
    if role == "freeBusyReader":
        return [{k: v for k, v in r.items() if k in FREE_BUSY_FIELDS} for r in resources]
    return resources


def all_day(row: Row) -> bool:
    return "date" in (row.get("start") or {})


def instances(call: Call, master: Row, zone_name: str | None, after: datetime | None,
              before: datetime | None, deleted: bool) -> list[Row]:
    """The series' occurrences as rows; an exception (a row of its own) stands in for its
    occurrence, and a cancelled one hides it unless `deleted`."""
    exceptions = {e.get("original_start_time", {}).get("dateTime") or e.get("original_start_time", {}).get("date"): e
                  for e in call.state.rows("calendar_events", recurring_event_id=master["id"])}
    duration = moment(master["end"], zone_name) - moment(master["start"], zone_name)
    found = []
    for start in recurrence.occurrences(master, zone_name, after, before):
        whole_day = all_day(master)
        begin = shifted(master["start"], start, whole_day)
        key = begin.get("dateTime") or begin.get("date")
        if key in exceptions:
            exception = exceptions.pop(key)
            if exception.get("status") != "cancelled" or deleted:
                found.append(exception)
            continue
        end = shifted(master["end"], start + duration, whole_day)
        found.append({**master, "id": recurrence.instance_id(master["id"], start, whole_day), "start": begin,
                      "end": end, "start_datetime": local_column(begin), "end_datetime": local_column(end),
                      "recurrence": None, "recurring_event_id": master["id"], "original_start_time": begin})
    return found


def _overlaps(row: Row, zone_name: str | None, after: datetime | None, before: datetime | None) -> bool:
    if row.get("recurrence"):
        return bool(recurrence.occurrences(row, zone_name, after, before)[:1])
    start, end = moment(row["start"], zone_name), moment(row["end"], zone_name)
    return (after is None or end > after) and (before is None or start < before)


def _matches(call: Call, row: Row, text: str) -> bool:
    emails = " ".join(a["email"] for a in call.state.rows("calendar_event_attendees", event_id=row["id"]))
    haystack = " ".join(str(row.get(c) or "") for c in ("summary", "description", "location")) + " " + emails
    return all(word in haystack.lower() for word in text.lower().split())


def sync_token(calendar_id: str) -> str:
    return base64.urlsafe_b64encode(json.dumps({"c": calendar_id, "t": now_text()}).encode()).decode()


def read_sync_token(text: str, calendar_id: str) -> str:
    try:
        data = json.loads(base64.urlsafe_b64decode(text.encode()))
        if data["c"] == calendar_id:
            return data["t"]
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        pass
    raise RestError(410, "fullSyncRequired", "Sync token is no longer valid, a full sync is required.")


def event_rows(call: Call, calendar: Row) -> list[Row]:
    """What the list shows before paging, in Google's order."""
    zone_name = calendar.get("time_zone")
    since = None
    if call.params.get("syncToken"):
        if any(call.params.get(p) for p in SYNC_EXCLUSIVE):
            raise RestError(400, "invalid", "Sync token cannot be used with other filtering parameters.")
        since = read_sync_token(call.params["syncToken"], calendar["id"])
    after = parse_instant(call.params["timeMin"]) if call.params.get("timeMin") else None
    before = parse_instant(call.params["timeMax"]) if call.params.get("timeMax") else None
    if after and before and after >= before:
        raise RestError(400, "timeRangeEmpty", "The specified time range is empty.")
    single = call.arg("singleEvents", False)
    if call.params.get("orderBy") == "startTime" and not single:
        raise RestError(400, "invalid", "The requested ordering is not available for the particular query.")
    deleted = call.arg("showDeleted", False) or since is not None
    rows = call.state.rows("calendar_events", calendar_id=calendar["id"])
    shown = []
    for row in rows:
        if single and row.get("recurring_event_id"):
            continue  # an exception comes in with its series
        if single and row.get("recurrence"):
            shown += [i for i in instances(call, row, zone_name, after, before, deleted)
                      if _overlaps(i, zone_name, after, before)]
        elif (deleted or row.get("status") != "cancelled") and _overlaps(row, zone_name, after, before):
            shown.append(row)
    return [r for r in shown if _kept(call, r, since)]


def _kept(call: Call, row: Row, since: str | None) -> bool:
    if since is not None and (row.get("updated_at") or "") <= since:
        return False
    if call.params.get("q") and not _matches(call, row, call.params["q"]):
        return False
    if call.params.get("iCalUID") and row.get("ical_uid") != call.params["iCalUID"]:
        return False
    if call.params.get("updatedMin") and updated_text(row.get("updated_at")) < call.params["updatedMin"]:
        return False
    types = call.params.get("eventTypes")
    return not types or (row.get("event_type") or "default") in types


def _ordered(call: Call, rows: list[Row], zone_name: str | None) -> list[Row]:
    order = call.params.get("orderBy")
    if order == "startTime":
        return sorted(rows, key=lambda r: moment(r["start"], zone_name))
    if order == "updated":
        return sorted(rows, key=lambda r: r.get("updated_at") or "")
    return rows


def listing(call: Call, calendar: Row, role: str, rows: list[Row]) -> dict:
    items, next_token = page(call, rows, 250, 2500)
    return drop_none({
        "kind": "calendar#events", "etag": new_etag(), "summary": calendar.get("summary"),
        "description": calendar.get("description"), "updated": updated_text(now_text()),
        "timeZone": call.params.get("timeZone") or calendar.get("time_zone"), "accessRole": role,
        "defaultReminders": [], "items": serialize_all(call, items, role),
        "nextPageToken": next_token, "nextSyncToken": None if next_token else sync_token(calendar["id"])})


def list_events(call: Call) -> dict:
    calendar, role = access.calendar(call, call.params["calendarId"])
    return listing(call, calendar, role, _ordered(call, event_rows(call, calendar), calendar.get("time_zone")))


def find_event(call: Call, calendar: Row, event_id: str) -> Row:
    """A stored event, or an occurrence of a series by its instance id."""
    row = call.state.first("calendar_events", id=event_id, calendar_id=calendar["id"])
    if row is not None:
        return row
    master_id, _, _ = event_id.rpartition("_")
    master = call.state.first("calendar_events", id=master_id, calendar_id=calendar["id"]) if master_id else None
    if master and master.get("recurrence"):
        for occurrence in instances(call, master, calendar.get("time_zone"), None, None, deleted=True):
            if occurrence["id"] == event_id:
                return occurrence
    raise RestError(404, "notFound", "Not Found")


def get_event(call: Call) -> dict:
    calendar, role = access.calendar(call, call.params["calendarId"])
    return serialize(call, find_event(call, calendar, call.params["eventId"]), role)


def list_instances(call: Call) -> dict:
    calendar, role = access.calendar(call, call.params["calendarId"])
    master = find_event(call, calendar, call.params["eventId"])
    if not master.get("recurrence"):
        raise RestError(400, "invalid", "The event is not a recurring event.")
    after = parse_instant(call.params["timeMin"]) if call.params.get("timeMin") else None
    before = parse_instant(call.params["timeMax"]) if call.params.get("timeMax") else None
    rows = instances(call, master, calendar.get("time_zone"), after, before, call.arg("showDeleted", False))
    if call.params.get("originalStart"):
        wanted = parse_instant(call.params["originalStart"])
        rows = [r for r in rows if moment(r.get("original_start_time") or r["start"], None) == wanted]
    return listing(call, calendar, role, rows)
