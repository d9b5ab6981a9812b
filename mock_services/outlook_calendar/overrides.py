"""Outlook calendar over the pack generated from Microsoft Graph's metadata: each person's
calendars and events. A meeting is one row, its organizer's; it shows in each attendee's
calendar too (their events, their calendar view, their schedule), and an attendee's answer
(accept, tentativelyAccept, decline) is kept in the organizer's attendee list, as Exchange
tells the organizer. Times are `dateTimeTimeZone`s; a calendar view compares them in UTC."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from mock_services import clock
from mock_services.rest import graph
from mock_services.rest.errors import RestError
from mock_services.rest.graph import ALIASES, EXTRA_ROUTES, credentials, identify, prepare
from mock_services.rest.openapi import styles
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import Call
from mock_services.store import Row

EVENTS, CALENDARS, USERS = "outlook_calendar_events", "outlook_calendar_calendars", "outlook_calendar_users"
IDS = {EVENTS: graph.exchange_id("BGAAAAAAAe", 40), CALENDARS: graph.exchange_id("AuAAAAAAAc", 24),
       USERS: {"kind": "uuid"}}
MISSING = {EVENTS: graph.NOT_IN_STORE, CALENDARS: graph.NOT_IN_STORE, USERS: graph.NO_USER}
error_body = graph.error_body_for("ErrorItemNotFound")
ANSWERS = {"user.event_accept": "accepted", "user.event_tentativelyAccept": "tentativelyAccepted",
           "user.event_decline": "declined"}
EVENT = {"$ref": "#/components/schemas/microsoft.graph.event"}
WINDOWS = {"Pacific Standard Time": "America/Los_Angeles", "Eastern Standard Time": "America/New_York",
           "Central Standard Time": "America/Chicago", "Mountain Standard Time": "America/Denver",
           "GMT Standard Time": "Europe/London", "W. Europe Standard Time": "Europe/Berlin",
           "Tokyo Standard Time": "Asia/Tokyo", "India Standard Time": "Asia/Kolkata"}


def utc(moment: Any) -> datetime:
    """A `dateTimeTimeZone` (or an ISO text) as a UTC instant; Windows zone names read too."""
    text, zone = (moment.get("dateTime"), moment.get("timeZone")) if isinstance(moment, dict) else (moment, "UTC")
    try:
        found = datetime.fromisoformat(str(text).replace("Z", "+00:00")[:26] if "." in str(text) else
                                       str(text).replace("Z", "+00:00"))
    except ValueError:
        raise RestError(400, "ErrorInvalidRequest", f"'{text}' is not a valid date and time.") from None
    if found.tzinfo is None:
        try:
            found = found.replace(tzinfo=ZoneInfo(WINDOWS.get(zone or "UTC", zone or "UTC")))
        except (KeyError, ValueError):
            found = found.replace(tzinfo=UTC)
    return found.astimezone(UTC)


def _address(user: Row) -> str:
    return str(user.get("mail") or user.get("userPrincipalName") or "").lower()


def visible(call: Call, user: str) -> list[Row]:
    """The events in the user's calendar: theirs, and those they are invited to."""
    row = call.state.first(USERS, id=user) or {}
    mine = _address(row)
    return [e for e in call.state.rows(EVENTS) if e.get("user_id") == user or any(
        str((a.get("emailAddress") or {}).get("address", "")).lower() == mine for a in e.get("attendees") or [])]


def as_seen(call: Call, event: Row, user: str) -> Row:
    """An event as the user's calendar shows it: an attendee sees their own response."""
    if event.get("user_id") == user:
        return event
    mine = _address(call.state.first(USERS, id=user) or {})
    own = next((a for a in event.get("attendees") or [] if
                str((a.get("emailAddress") or {}).get("address", "")).lower() == mine), {})
    return {**event, "isOrganizer": False, "responseStatus": own.get("status") or {"response": "none"}}


def event(call: Call) -> Row:
    found = next((e for e in visible(call, call.params["user_id"]) if e["id"] == call.params["event_id"]), None)
    if found is None:
        raise RestError(404, "ErrorItemNotFound", MISSING[EVENTS])
    return found


def default_calendar(call: Call, user: str) -> Row:
    rows = call.state.rows(CALENDARS, user_id=user)
    found = next((c for c in rows if c.get("isDefaultCalendar")), rows[0] if rows else None)
    if found is None:
        raise RestError(404, "ErrorItemNotFound", MISSING[CALENDARS])
    return found


def _attendees(given: Any) -> list[dict]:
    return [{"type": a.get("type") or "required", **a, "status": {"response": "none", "time": "0001-01-01T00:00:00Z"}}
            for a in given or [] if isinstance(a, dict)]


def create(resources: Resources, call: Call) -> Any:
    """A new event in the calendar the path names (the default one otherwise), organized by the
    user; its attendees have not answered yet."""
    user = call.params["user_id"]
    fields = resources.body(call)
    for end in ("start", "end"):
        if not isinstance(fields.get(end), dict):
            raise RestError(400, "ErrorInvalidRequest", f"Your request can't be completed. '{end}' is required.")
    if utc(fields["end"]) < utc(fields["start"]):
        raise RestError(400, "ErrorInvalidRequest", "The end time of the event is before its start time.")
    calendar = call.params.get("calendar_id") or default_calendar(call, user)["id"]
    if not call.state.first(CALENDARS, id=calendar, user_id=user):
        raise RestError(404, "ErrorItemNotFound", MISSING[CALENDARS])
    owner = call.state.first(USERS, id=user) or {}
    made = styles.new_id(IDS[EVENTS], {r["id"] for r in call.state.rows(EVENTS)})
    at = graph.now()
    props = resources.schemas.named("microsoft.graph.event").get("properties", {})
    row = {k: v for k, v in fields.items() if k in props} | {
        "id": made, "user_id": user, "calendar_id": calendar, "attendees": _attendees(fields.get("attendees")),
        "organizer": graph.recipient(owner), "isOrganizer": True, "isCancelled": False,
        "responseStatus": {"response": "organizer", "time": "0001-01-01T00:00:00Z"},
        "createdDateTime": at, "lastModifiedDateTime": at, "type": "singleInstance",
        "showAs": fields.get("showAs") or "busy", "isAllDay": bool(fields.get("isAllDay")),
        "importance": fields.get("importance") or "normal", "sensitivity": fields.get("sensitivity") or "normal",
        "bodyPreview": str((fields.get("body") or {}).get("content") or "")[:255],
        "iCalUId": "040000008200E00074C5B7101A82E008" + clock.token_hex(16).upper()}
    call.state.insert(EVENTS, row)
    call.status = 201
    return resources.present(call, row, EVENT)


def read(resources: Resources, call: Call) -> Any:
    return graph.selected(call, resources.present(call, as_seen(call, event(call), call.params["user_id"]), EVENT))


def update(resources: Resources, call: Call) -> Any:
    """The organizer changes the meeting (an attendee may not: Exchange keeps theirs a copy)."""
    row = event(call)
    if row["user_id"] != call.params["user_id"]:
        raise RestError(403, "ErrorAccessDenied", "Only the organizer can update this meeting.",
                        details={"code": "ErrorAccessDenied"})
    fields = resources.body(call)
    if "attendees" in fields:
        before = {str((a.get("emailAddress") or {}).get("address", "")).lower(): a for a in row.get("attendees") or []}
        fields["attendees"] = [{**a, "status": before.get(str((a.get("emailAddress") or {}).get("address", "")).lower(),
                                                          {}).get("status") or a.get("status") or
                               {"response": "none", "time": "0001-01-01T00:00:00Z"}}
                               for a in _attendees(fields["attendees"])]
    row = {**row, **fields, "lastModifiedDateTime": graph.now()}
    if utc(row["end"]) < utc(row["start"]):
        raise RestError(400, "ErrorInvalidRequest", "The end time of the event is before its start time.")
    call.state.update(EVENTS, row)
    return resources.present(call, row, EVENT)


def delete(resources: Resources, call: Call) -> None:
    row = event(call)
    if row["user_id"] == call.params["user_id"]:
        call.state.delete(EVENTS, row)
    else:  # an attendee removes it from their calendar: they no longer attend
        mine = _address(call.state.first(USERS, id=call.params["user_id"]) or {})
        call.state.update(EVENTS, {**row, "attendees": [a for a in row.get("attendees") or [] if str(
            (a.get("emailAddress") or {}).get("address", "")).lower() != mine]})


def respond(resources: Resources, call: Call) -> None:
    """accept, tentativelyAccept, decline: the attendee's answer in the organizer's meeting."""
    row = event(call)
    mine = _address(call.state.first(USERS, id=call.params["user_id"]) or {})
    if row["user_id"] == call.params["user_id"]:
        raise RestError(400, "ErrorInvalidRequest", "Your request can't be completed. You can't respond to a "
                        "meeting you organized.")
    answer = {"response": ANSWERS[call.operation.short_id], "time": graph.now()}
    call.state.update(EVENTS, {**row, "attendees": [
        {**a, "status": answer} if str((a.get("emailAddress") or {}).get("address", "")).lower() == mine else a
        for a in row.get("attendees") or []]})


def cancel(resources: Resources, call: Call) -> None:
    row = event(call)
    if row["user_id"] != call.params["user_id"]:
        raise RestError(400, "ErrorAccessDenied", "Your request can't be completed. Only the meeting organizer "
                        "can cancel the meeting.")
    call.state.update(EVENTS, {**row, "isCancelled": True, "lastModifiedDateTime": graph.now()})


def listed(resources: Resources, call: Call) -> Any:
    """The user's events (of one calendar, where the path names it)."""
    user = call.params["user_id"]
    rows = [as_seen(call, e, user) for e in visible(call, user)]
    calendar = call.params.get("calendar_id") or ("default" if "calendar/" in call.operation.path else None)
    if calendar:
        chosen = default_calendar(call, user)["id"] if calendar == "default" else calendar
        rows = [r for r in rows if r.get("calendar_id") == chosen or r.get("user_id") != user]
    return graph.listing(resources, call, rows)


def calendar_view(resources: Resources, call: Call) -> Any:
    """The user's events that overlap [startDateTime, endDateTime), earliest first."""
    start, end = utc(call.params["startDateTime"]), utc(call.params["endDateTime"])
    user = call.params["user_id"]
    rows = [as_seen(call, e, user) for e in visible(call, user)
            if not e.get("isCancelled") and utc(e["start"]) < end and utc(e["end"]) > start]
    return graph.listing(resources, call, sorted(rows, key=lambda e: utc(e["start"])))


def get_calendar(resources: Resources, call: Call) -> Any:
    return resources.present(call, default_calendar(call, call.params["user_id"]),
                             resources.response(call.operation.short_id)[1])


def schedule(resources: Resources, call: Call) -> Any:
    """getSchedule: each address's busy times in the window (people of the environment only)."""
    given = graph.body(call)
    start, end = utc(given.get("startTime") or {}), utc(given.get("endTime") or {})
    out = []
    for address in given.get("schedules") or []:
        user = next((u for u in call.state.rows(USERS) if _address(u) == str(address).lower()), None)
        if user is None:
            out.append({"scheduleId": address, "error": {"message": "The user or mailbox was not found.",
                                                         "responseCode": "ErrorMailRecipientNotFound"}})
            continue
        items = [{"status": e.get("showAs") or "busy", "subject": e.get("subject"), "start": e["start"],
                  "end": e["end"], "isPrivate": e.get("sensitivity") == "private",
                  "location": (e.get("location") or {}).get("displayName")}
                 for e in visible(call, user["id"]) if not e.get("isCancelled") and utc(e["start"]) < end and
                 utc(e["end"]) > start]
        out.append({"scheduleId": address, "scheduleItems": items, "availabilityView": ""})
    return {"value": out}


HANDLERS = {"user_CreateEvent": create, "user.calendar_CreateEvent": create, "user.calendars_CreateEvent": create,
            "user_GetEvent": read, "user_UpdateEvent": update, "user_DeleteEvent": delete,
            "user_ListEvent": listed, "user.calendar_ListEvent": listed, "user.calendars_ListEvent": listed,
            "user_ListCalendarView": calendar_view, "user_GetCalendar": get_calendar,
            "user.event_cancel": cancel, "user.calendar_getSchedule": schedule,
            **dict.fromkeys(ANSWERS, respond)}

__all__ = ["ALIASES", "EXTRA_ROUTES", "HANDLERS", "IDS", "MISSING", "credentials", "error_body", "identify",
           "prepare"]
