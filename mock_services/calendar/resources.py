"""Rows (AgentDiff's columns) as Google's resources (Calendar v3's field names), and back."""

from __future__ import annotations

from typing import Any

from mock_services import clock
from mock_services.calendar.times import local_column, updated_text, with_offset
from mock_services.store import Row

# Google's palette (colors.get): calendar colors 1-24 and event colors 1-11.
CALENDAR_COLORS = ("#ac725e", "#d06b64", "#f83a22", "#fa573c", "#ff7537", "#ffad46", "#42d692", "#16a765",
                   "#7bd148", "#b3dc6c", "#fbe983", "#fad165", "#92e1c0", "#9fe1e7", "#9fc6e7", "#4986e7",
                   "#9a9cff", "#b99aff", "#c2c2c2", "#cabdbf", "#cca6ac", "#f691b2", "#cd74e6", "#a47ae2")
EVENT_COLORS = ("#a4bdfc", "#7ae7bf", "#dbadff", "#ff887c", "#fbd75b", "#ffb878", "#46d6db", "#e1e1e1",
                "#5484ed", "#51b749", "#dc2127")
FOREGROUND = "#1d1d1d"

# Event fields kept in AgentDiff's own columns; every other field of the body is kept as given.
EVENT_COLUMNS = {"summary": "summary", "description": "description", "location": "location", "status": "status",
                 "visibility": "visibility", "transparency": "transparency", "eventType": "event_type",
                 "colorId": "color_id", "recurrence": "recurrence", "iCalUID": "ical_uid", "sequence": "sequence",
                 "reminders": "reminders", "start": "start", "end": "end", "recurringEventId": "recurring_event_id",
                 "originalStartTime": "original_start_time"}
READ_ONLY = {"kind", "etag", "id", "htmlLink", "created", "updated", "creator", "organizer", "attendees"}


def new_etag() -> str:
    """Google's etags are quoted digits; a drawn tail keeps two writes in one frozen moment apart."""
    return f'"{int(clock.now() * 1_000_000) + int(clock.token_hex(3), 16) % 1000}"'


def new_id(prefix: str = "") -> str:
    """Google's event ids are base32hex (a-v, 0-9)."""
    alphabet = "abcdefghijklmnopqrstuv0123456789"
    return prefix + clock.choice(alphabet, 26)


def drop_none(data: dict) -> dict:
    return {k: v for k, v in data.items() if v is not None}


def calendar_json(row: Row) -> dict:
    return drop_none({"kind": "calendar#calendar", "etag": row.get("etag"), "id": row["id"],
                      "summary": row.get("summary"), "description": row.get("description"),
                      "location": row.get("location"), "timeZone": row.get("time_zone"),
                      "conferenceProperties": {"allowedConferenceSolutionTypes": ["hangoutsMeet"]}})


def list_entry_json(entry: Row, calendar: Row, role: str) -> dict:
    color = str(entry.get("color_id") or "1")
    index = int(color) - 1 if color.isdigit() and 0 < int(color) <= len(CALENDAR_COLORS) else 0
    return drop_none({
        "kind": "calendar#calendarListEntry", "etag": entry.get("etag"), "id": calendar["id"],
        "summary": calendar.get("summary"), "description": calendar.get("description"),
        "location": calendar.get("location"), "timeZone": calendar.get("time_zone"),
        "summaryOverride": entry.get("summary_override"), "colorId": color,
        "backgroundColor": entry.get("background_color") or CALENDAR_COLORS[index],
        "foregroundColor": entry.get("foreground_color") or FOREGROUND,
        "hidden": entry.get("hidden") or None, "selected": bool(entry.get("selected", True)),
        "accessRole": role, "defaultReminders": entry.get("default_reminders") or [],
        "notificationSettings": entry.get("notification_settings"),
        "primary": entry.get("primary") or None, "deleted": entry.get("deleted") or None,
        "conferenceProperties": {"allowedConferenceSolutionTypes": ["hangoutsMeet"]}})


def person(email: str | None, user_email: str, display: str | None = None) -> dict | None:
    if not email:
        return None
    return drop_none({"email": email, "displayName": display, "self": True if email == user_email else None})


def attendee_json(row: Row, user_email: str) -> dict:
    return drop_none({"email": row["email"], "displayName": row.get("display_name"),
                      "responseStatus": row.get("response_status") or "needsAction",
                      "optional": row.get("optional") or None, "organizer": row.get("organizer") or None,
                      "resource": row.get("resource") or None, "comment": row.get("comment"),
                      "additionalGuests": row.get("additional_guests") or None,
                      "self": True if row["email"] == user_email else None})


def event_json(row: Row, attendees: list[Row], user_email: str) -> dict:
    resource: dict[str, Any] = {"kind": "calendar#event", "etag": row.get("etag"), "id": row["id"],
                                "status": row.get("status") or "confirmed",
                                "htmlLink": row.get("html_link") or f"https://www.google.com/calendar/event?eid={row['id']}",
                                "created": updated_text(row.get("created_at")),
                                "updated": updated_text(row.get("updated_at"))}
    for field, column in EVENT_COLUMNS.items():
        if row.get(column) is not None and field not in resource:
            resource[field] = row[column]
    resource.update(row.get("extra") or {})
    resource["creator"] = person(row.get("creator_email"), user_email)
    resource["organizer"] = person(row.get("organizer_email"), user_email)
    resource.setdefault("reminders", {"useDefault": True})
    resource.setdefault("eventType", "default")
    resource.setdefault("iCalUID", f"{row['id']}@google.com")
    resource.setdefault("sequence", 0)
    if attendees:
        resource["attendees"] = [attendee_json(a, user_email) for a in attendees]
    return drop_none(resource)


def event_columns(body: dict, calendar_zone: str | None) -> tuple[Row, dict]:
    """A request body as (AgentDiff's columns, the other fields as given); start and end
    written with their UTC offset (`with_offset`)."""
    columns: Row = {}
    extra = {}
    for field, value in body.items():
        if field in EVENT_COLUMNS:
            columns[EVENT_COLUMNS[field]] = value
        elif field not in READ_ONLY:
            extra[field] = value
    for side in ("start", "end"):
        if isinstance(columns.get(side), dict):
            columns[side] = with_offset(columns[side], calendar_zone)
            columns[f"{side}_datetime"] = local_column(columns[side])
    return columns, extra


def acl_json(row: Row) -> dict:
    scope = {"type": row.get("scope_type") or "default"}
    if row.get("scope_value"):
        scope["value"] = row["scope_value"]
    return {"kind": "calendar#aclRule", "etag": row.get("etag"), "id": rule_id(row), "scope": scope,
            "role": row.get("role")}


def rule_id(row: Row) -> str:
    """Google's rule id, `type:value` (`user:ann@example.com`, `default`)."""
    if row.get("scope_type") == "default" or not row.get("scope_value"):
        return "default"
    return f"{row['scope_type']}:{row['scope_value']}"


def setting_json(setting_id: str, value: str, etag: str | None) -> dict:
    return {"kind": "calendar#setting", "etag": etag or new_etag(), "id": setting_id, "value": value}


def channel_json(row: Row, resource_uri: str) -> dict:
    return drop_none({"kind": "api#channel", "id": row["id"], "resourceId": row.get("resource_id"),
                      "resourceUri": resource_uri, "token": row.get("token"),
                      "expiration": str(row["expiration"]) if row.get("expiration") else None})


def colors_json() -> dict:
    def palette(colors: tuple[str, ...]) -> dict:
        return {str(i + 1): {"background": c, "foreground": FOREGROUND} for i, c in enumerate(colors)}
    return {"kind": "calendar#colors", "updated": "2012-02-14T00:00:00.000Z",
            "calendar": palette(CALENDAR_COLORS), "event": palette(EVENT_COLORS)}

