"""events.insert, update (PUT: a replacement), patch, delete, move, quickAdd, import and
watch. A change to one occurrence of a series becomes an exception row of its own; a delete
leaves the event `cancelled`, as Google keeps it for sync."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from mock_services import clock
from mock_services.calendar import access
from mock_services.calendar import quick_add as quick_add_text
from mock_services.calendar.handlers.channels import watch
from mock_services.calendar.handlers.events_read import find_event, serialize
from mock_services.calendar.resources import drop_none, event_columns, new_etag, new_id
from mock_services.calendar.times import moment, now_text, zone
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row

EVENT_ID = re.compile(r"^[a-v0-9]{5,1024}$")
ATTENDEE_FIELDS = {"displayName": "display_name", "responseStatus": "response_status", "optional": "optional",
                   "organizer": "organizer", "resource": "resource", "comment": "comment",
                   "additionalGuests": "additional_guests"}
REPLACED_COLUMNS = ("summary", "description", "location", "visibility", "transparency", "color_id", "recurrence",
                    "reminders", "extra")


def check_times(body: Row, zone_name: str | None) -> None:
    """Start and end are both there, of one kind, in order; a series names its time zone."""
    for side in ("start", "end"):
        if not isinstance(body.get(side), dict) or not (body[side].get("dateTime") or body[side].get("date")):
            raise RestError(400, "required", f"Missing {side} time.")
    if ("date" in body["start"]) != ("date" in body["end"]):
        raise RestError(400, "invalid", "Start and end times must either both be date or both be dateTime.")
    if moment(body["end"], zone_name) < moment(body["start"], zone_name):
        raise RestError(400, "timeRangeEmpty", "The specified time range is empty.")
    if body.get("recurrence") is not None:
        if not isinstance(body["recurrence"], list) or not all(isinstance(r, str) for r in body["recurrence"]):
            raise RestError(400, "invalid", "Invalid recurrence rule.")
        if body["recurrence"] and "dateTime" in body["start"] and not body["start"].get("timeZone") \
                and not zone_name:
            raise RestError(400, "invalid", "Missing time zone definition for start time.")
    for side in ("start", "end"):
        zone(body[side].get("timeZone"))


def check_if_match(call: Call, row: Row) -> None:
    wanted = call.headers.get("if-match")
    if wanted and wanted != "*" and wanted != row.get("etag"):
        raise RestError(412, "conditionNotMet", "Precondition Failed")


def save_attendees(call: Call, event_id: str, attendees: list | None) -> None:
    """The body's attendees replace the stored ones; a response already given is kept."""
    if attendees is None:
        return
    if not isinstance(attendees, list) or not all(isinstance(a, dict) and a.get("email") for a in attendees):
        raise RestError(400, "required", "Missing attendee email.")
    before = {a["email"]: a for a in call.state.rows("calendar_event_attendees", event_id=event_id)}
    for row in before.values():
        call.state.delete("calendar_event_attendees", row)
    for given in attendees:
        row = {"event_id": event_id, "email": given["email"],
               "response_status": before.get(given["email"], {}).get("response_status", "needsAction")}
        row |= {column: given[field] for field, column in ATTENDEE_FIELDS.items() if field in given}
        call.state.insert("calendar_event_attendees", drop_none(row))


def new_event(call: Call, calendar: Row, body: dict, event_id: str | None = None) -> Row:
    check_times(body, calendar.get("time_zone"))
    if event_id is None and body.get("id"):
        if not EVENT_ID.fullmatch(str(body["id"])):
            raise RestError(400, "invalid", "Invalid resource id value.")
        if call.state.first("calendar_events", id=body["id"]):
            raise RestError(409, "duplicate", "The requested identifier already exists.")
    event_id = event_id or body.get("id") or new_id()
    columns, extra = event_columns(body, calendar.get("time_zone"))
    email, now = access.user_email(call), now_text()
    row = {"id": event_id, "calendar_id": calendar["id"], "ical_uid": f"{event_id}@google.com",
           "status": "confirmed", "event_type": "default", "sequence": 0} | columns | {
        "creator_id": call.user, "organizer_id": call.user, "creator_email": email, "organizer_email": email,
        "etag": new_etag(), "html_link": f"https://www.google.com/calendar/event?eid={event_id}",
        "extra": extra or None, "created_at": now, "updated_at": now}
    call.state.insert("calendar_events", drop_none(row))
    save_attendees(call, event_id, body.get("attendees"))
    return row


def insert_event(call: Call) -> dict:
    calendar, _ = access.calendar(call, call.params["calendarId"], at_least="writer")
    return serialize(call, new_event(call, calendar, call.body or {}))


def stored(call: Call, calendar: Row, event_id: str) -> Row:
    """The event's own row; an occurrence of a series becomes an exception row first."""
    row = find_event(call, calendar, event_id)
    if row.get("id") == event_id and call.state.first("calendar_events", id=event_id):
        return row
    exception = {**row, "etag": new_etag(), "created_at": now_text(), "updated_at": now_text()}
    call.state.insert("calendar_events", drop_none(exception))
    return exception


def change_event(call: Call, replace: bool) -> dict:
    calendar, _ = access.calendar(call, call.params["calendarId"], at_least="writer")
    row = stored(call, calendar, call.params["eventId"])
    check_if_match(call, row)
    before = serialize(call, row)
    body = call.body or {}
    columns, extra = event_columns(body, calendar.get("time_zone"))
    updated = dict(row)
    if replace:
        for column in REPLACED_COLUMNS:
            updated.pop(column, None)
    updated |= columns
    updated["extra"] = (extra if replace else {**(row.get("extra") or {}), **extra}) or None
    check_times(updated, calendar.get("time_zone"))
    save_attendees(call, row["id"], body.get("attendees", [] if replace else None))
    if serialize(call, drop_none(updated)) == before:
        return before  # the event as it was (an update with the event as fetched): nothing changes
    moved = (updated["start"], updated["end"]) != (row["start"], row["end"])
    updated |= {"sequence": int(row.get("sequence") or 0) + (1 if moved else 0), "etag": new_etag(),
                "updated_at": now_text()}
    call.state.update("calendar_events", drop_none(updated))
    return serialize(call, drop_none(updated))


def delete_event(call: Call) -> None:
    calendar, _ = access.calendar(call, call.params["calendarId"], at_least="writer")
    row = stored(call, calendar, call.params["eventId"])
    check_if_match(call, row)
    if row.get("status") == "cancelled":
        raise RestError(410, "deleted", "Resource has been deleted")
    call.state.update("calendar_events", row | {"status": "cancelled", "etag": new_etag(), "updated_at": now_text()})


def move_event(call: Call) -> dict:
    source, _ = access.calendar(call, call.params["calendarId"], at_least="writer")
    target, _ = access.calendar(call, call.params["destination"], at_least="writer")
    row = find_event(call, source, call.params["eventId"])
    if row.get("recurring_event_id"):
        raise RestError(400, "cannotChangeOrganizerOfInstance", "Cannot move an instance of a recurring event.")
    moved = row | {"calendar_id": target["id"], "etag": new_etag(), "updated_at": now_text()}
    call.state.update("calendar_events", moved)
    return serialize(call, moved)


def quick_add(call: Call) -> dict:
    """The date, time and length read out of the text, as Google reads it, relative to now in
    the calendar's zone; a text that names no time is its title, at the next full hour."""
    calendar, _ = access.calendar(call, call.params["calendarId"], at_least="writer")
    tz = calendar.get("time_zone") or "UTC"
    now = clock.local(zone(tz)).replace(tzinfo=None, microsecond=0)
    found = quick_add_text.read(call.params["text"], now)
    if found is None:
        start = (now + timedelta(hours=1)).replace(minute=0, second=0)
        found = quick_add_text.QuickEvent(call.params["text"], start, start + quick_add_text.DEFAULT_LENGTH)
    kind = "dateTime" if isinstance(found.start, datetime) else "date"
    body = {"summary": found.title,
            "start": {kind: found.start.isoformat(), **({"timeZone": tz} if kind == "dateTime" else {})},
            "end": {kind: found.end.isoformat(), **({"timeZone": tz} if kind == "dateTime" else {})}}
    return serialize(call, new_event(call, calendar, body))


def import_event(call: Call) -> dict:
    """An event by its iCalendar UID: a new one, or the same UID's event updated."""
    calendar, _ = access.calendar(call, call.params["calendarId"], at_least="writer")
    body = dict(call.body or {})
    if not body.get("iCalUID"):
        raise RestError(400, "required", "Missing iCalUID.")
    existing = call.state.first("calendar_events", calendar_id=calendar["id"], ical_uid=body["iCalUID"])
    if existing:
        call.params["eventId"] = existing["id"]
        return change_event(call, replace=True)
    body.pop("id", None)
    return serialize(call, new_event(call, calendar, body))


def watch_events(call: Call) -> dict:
    calendar, _ = access.calendar(call, call.params["calendarId"], at_least="reader")
    return watch(call, f"/calendars/{call.params['calendarId']}/events", f"/calendars/{calendar['id']}/events")
