"""colors.get, settings.*, freebusy.query and channels.stop."""

from __future__ import annotations

from mock_services.calendar import access
from mock_services.calendar.handlers.channels import stop, watch
from mock_services.calendar.handlers.events_read import instances
from mock_services.calendar.handlers.paging import page
from mock_services.calendar.resources import colors_json, drop_none, new_etag, setting_json
from mock_services.calendar.times import moment, parse_instant, utc_text
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row

# Google's settings and what a user who never changed them has.
DEFAULT_SETTINGS = {"autoAddHangouts": "false", "dateFieldOrder": "MDY", "defaultEventLength": "60",
                    "format24HourTime": "false", "hideInvitations": "false", "hideWeekends": "false",
                    "locale": "en", "remindOnRespondedEventsOnly": "false", "showDeclinedEvents": "true",
                    "timezone": "UTC", "useKeyboardShortcuts": "true", "weekStart": "0"}
MOST_CALENDARS = 50


def settings(call: Call) -> dict[str, dict]:
    stored = {r["setting_id"]: r for r in call.state.rows("calendar_settings", user_id=call.user)}
    return {name: setting_json(name, str(stored[name]["value"]) if name in stored else value,
                               stored.get(name, {}).get("etag"))
            for name, value in {**DEFAULT_SETTINGS, **{k: "" for k in stored}}.items()}


def list_settings(call: Call) -> dict:
    items, next_token = page(call, list(settings(call).values()), 100, 250)
    return drop_none({"kind": "calendar#settings", "etag": new_etag(), "items": items, "nextPageToken": next_token,
                      "nextSyncToken": None if next_token else "settings-sync"})


def get_setting(call: Call) -> dict:
    found = settings(call).get(call.params["setting"])
    if found is None:
        raise RestError(404, "notFound", "Not Found")
    return found


def busy_times(call: Call, calendar: Row, after, before) -> list[dict]:
    zone_name = calendar.get("time_zone")
    spans = []
    for row in call.state.rows("calendar_events", calendar_id=calendar["id"]):
        if row.get("recurring_event_id") or row.get("status") == "cancelled" or row.get("transparency") == "transparent":
            continue
        for event in instances(call, row, zone_name, after, before, False) if row.get("recurrence") else [row]:
            start, end = moment(event["start"], zone_name), moment(event["end"], zone_name)
            if end > after and start < before and event.get("status") != "cancelled":
                spans.append((max(start, after), min(end, before)))
    merged: list[list] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [{"start": utc_text(s), "end": utc_text(e)} for s, e in merged]


def free_busy(call: Call) -> dict:
    body = call.body or {}
    for field in ("timeMin", "timeMax"):
        if not body.get(field):
            raise RestError(400, "required", f"Missing {field} parameter.")
    after, before = parse_instant(body["timeMin"]), parse_instant(body["timeMax"])
    if after >= before:
        raise RestError(400, "timeRangeEmpty", "The specified time range is empty.")
    items = body.get("items") or []
    if not isinstance(items, list) or len(items) > MOST_CALENDARS:
        raise RestError(400, "tooManyCalendarsRequested", "Too many calendars requested.")
    calendars = {}
    for item in items:
        given = str((item or {}).get("id", ""))
        try:
            calendar, _ = access.calendar(call, given)
        except RestError:
            calendars[given] = {"busy": [], "errors": [{"domain": "global", "reason": "notFound"}]}
            continue
        calendars[given] = {"busy": busy_times(call, calendar, after, before)}
    return {"kind": "calendar#freeBusy", "timeMin": utc_text(after), "timeMax": utc_text(before),
            "calendars": calendars}


HANDLERS = {
    "colors.get": lambda call: colors_json(),
    "settings.list": list_settings, "settings.get": get_setting,
    "settings.watch": lambda call: watch(call, "/users/me/settings", f"/users/{call.user}/settings"),
    "freebusy.query": free_busy,
    "channels.stop": stop,
}
