"""calendars.* (the calendars themselves) and calendarList.* (each user's list of them)."""

from __future__ import annotations

from mock_services.calendar import access
from mock_services.calendar.handlers.channels import watch
from mock_services.calendar.handlers.paging import page
from mock_services.calendar.resources import calendar_json, drop_none, list_entry_json, new_etag, new_id
from mock_services.calendar.times import now_text, zone
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row

CALENDAR_FIELDS = {"summary": "summary", "description": "description", "location": "location",
                   "timeZone": "time_zone"}
ENTRY_FIELDS = {"colorId": "color_id", "hidden": "hidden", "selected": "selected",
                "summaryOverride": "summary_override", "backgroundColor": "background_color",
                "foregroundColor": "foreground_color", "defaultReminders": "default_reminders",
                "notificationSettings": "notification_settings"}


def _user_zone(call: Call) -> str:
    setting = call.state.first("calendar_settings", user_id=call.user, setting_id="timezone")
    return setting["value"] if setting else "UTC"


def _apply(row: Row, body: dict, mapping: dict[str, str], replace: bool) -> Row:
    """PATCH keeps what the body leaves out; PUT (replace) clears it."""
    updated = dict(row)
    for field, column in mapping.items():
        if field in body:
            updated[column] = body[field]
        elif replace:
            updated.pop(column, None)
    return updated


def insert_calendar(call: Call) -> dict:
    body = call.body or {}
    if not body.get("summary"):
        raise RestError(400, "required", "Missing title.")
    if body.get("timeZone"):
        zone(body["timeZone"])
    now = now_text()
    row = {"id": f"c_{new_id()}@group.calendar.google.com", "summary": body["summary"],
           "description": body.get("description"), "location": body.get("location"),
           "time_zone": body.get("timeZone") or _user_zone(call), "owner_id": call.user, "etag": new_etag(),
           "created_at": now, "updated_at": now}
    call.state.insert("calendars", drop_none(row))
    email = access.user_email(call)
    call.state.insert("calendar_list_entries", {
        "id": new_id("cle_"), "user_id": call.user, "calendar_id": row["id"], "access_role": "owner",
        "primary": False, "selected": True, "hidden": False, "deleted": False, "etag": new_etag(),
        "created_at": now, "updated_at": now})
    call.state.insert("calendar_acl_rules", {
        "id": f"{row['id']}:user:{email}", "calendar_id": row["id"], "role": "owner", "scope_type": "user",
        "scope_value": email, "etag": new_etag(), "created_at": now, "updated_at": now})
    return calendar_json(row)


def get_calendar(call: Call) -> dict:
    return calendar_json(access.calendar(call, call.params["calendarId"])[0])


def change_calendar(call: Call, replace: bool) -> dict:
    found, _ = access.calendar(call, call.params["calendarId"], at_least="owner")
    body = call.body or {}
    if replace and not body.get("summary"):
        raise RestError(400, "required", "Missing title.")
    if body.get("timeZone"):
        zone(body["timeZone"])
    updated = _apply(found, body, CALENDAR_FIELDS, replace) | {"etag": new_etag(), "updated_at": now_text()}
    if replace and not updated.get("time_zone"):
        updated["time_zone"] = found.get("time_zone")
    call.state.update("calendars", updated)
    return calendar_json(updated)


def delete_calendar(call: Call) -> None:
    found, _ = access.calendar(call, call.params["calendarId"], at_least="owner")
    if found["id"] == access.primary_id(call):
        raise RestError(400, "cannotDeletePrimaryCalendar", "Cannot delete primary calendar.")
    # kept, marked deleted, as for events, rules and list entries (and AgentDiff's tables): 404 after
    call.state.update("calendars", found | {"deleted": True, "etag": new_etag(), "updated_at": now_text()})
    for entry in call.state.rows("calendar_list_entries", calendar_id=found["id"]):
        call.state.update("calendar_list_entries", entry | {"deleted": True, "updated_at": now_text()})


def clear_calendar(call: Call) -> None:
    """Every event of the calendar is deleted (cancelled, as a delete leaves it)."""
    found, _ = access.calendar(call, call.params["calendarId"], at_least="owner")
    for event in call.state.rows("calendar_events", calendar_id=found["id"]):
        if event.get("status") != "cancelled":
            call.state.update("calendar_events", event | {"status": "cancelled", "etag": new_etag(),
                                                          "updated_at": now_text()})


def transfer_ownership(call: Call) -> None:
    found, _ = access.calendar(call, call.params["calendarId"], at_least="owner")
    new_owner = call.state.first("calendar_users", email=call.params["newDataOwner"])
    if new_owner is None:
        raise RestError(400, "invalid", "Invalid newDataOwner.")
    call.state.update("calendars", found | {"owner_id": new_owner["id"], "updated_at": now_text()})


# calendarList

def _entry(call: Call, calendar_id: str) -> Row:
    entry = call.state.first("calendar_list_entries", user_id=call.user,
                             calendar_id=access.calendar_id(call, calendar_id))
    if entry is None or entry.get("deleted"):
        raise RestError(404, "notFound", "Not Found")
    return entry


def _entry_json(call: Call, entry: Row) -> dict:
    found = call.state.first("calendars", id=entry["calendar_id"])
    if found is None:  # a calendar this environment does not hold: as the entry remembers it
        return list_entry_json(entry, {"id": entry["calendar_id"]}, entry.get("access_role", "reader"))
    return list_entry_json(entry, found, access.role_of(call, found))


def list_entries(call: Call) -> dict:
    least = call.params.get("minAccessRole", "freeBusyReader")
    entries = []
    for entry in call.state.rows("calendar_list_entries", user_id=call.user):
        if entry.get("deleted") and not call.arg("showDeleted", False):
            continue
        if entry.get("hidden") and not call.arg("showHidden", False):
            continue
        resource = _entry_json(call, entry)
        if access.rank(resource["accessRole"]) >= access.rank(least):
            entries.append(resource)
    items, next_token = page(call, entries, 100, 250)
    return drop_none({"kind": "calendar#calendarList", "etag": new_etag(), "items": items,
                      "nextPageToken": next_token, "nextSyncToken": None if next_token else "list-sync"})


def get_entry(call: Call) -> dict:
    return _entry_json(call, _entry(call, call.params["calendarId"]))


def insert_entry(call: Call) -> dict:
    body = call.body or {}
    if not body.get("id"):
        raise RestError(400, "required", "Required")
    found, role = access.calendar(call, body["id"])
    existing = call.state.first("calendar_list_entries", user_id=call.user, calendar_id=found["id"])
    now = now_text()
    entry = existing or {"id": new_id("cle_"), "user_id": call.user, "calendar_id": found["id"],
                         "primary": False, "created_at": now}
    entry = _apply(entry, body, ENTRY_FIELDS, replace=False) | {
        "access_role": role, "deleted": False, "etag": new_etag(), "updated_at": now}
    entry.setdefault("selected", True)
    entry.setdefault("hidden", False)
    (call.state.update if existing else call.state.insert)("calendar_list_entries", entry)
    return _entry_json(call, entry)


def change_entry(call: Call, replace: bool) -> dict:
    entry = _entry(call, call.params["calendarId"])
    updated = _apply(entry, call.body or {}, ENTRY_FIELDS, replace) | {"etag": new_etag(), "updated_at": now_text()}
    call.state.update("calendar_list_entries", updated)
    return _entry_json(call, updated)


def delete_entry(call: Call) -> None:
    entry = _entry(call, call.params["calendarId"])
    if entry.get("primary"):
        raise RestError(400, "cannotRemovePrimaryCalendar", "Cannot remove primary calendar from list.")
    call.state.update("calendar_list_entries", entry | {"deleted": True, "updated_at": now_text()})


HANDLERS = {
    "calendars.insert": insert_calendar, "calendars.get": get_calendar,
    "calendars.patch": lambda call: change_calendar(call, replace=False),
    "calendars.update": lambda call: change_calendar(call, replace=True),
    "calendars.delete": delete_calendar, "calendars.clear": clear_calendar,
    "calendars.transferOwnership": transfer_ownership,
    "calendarList.list": list_entries, "calendarList.get": get_entry, "calendarList.insert": insert_entry,
    "calendarList.patch": lambda call: change_entry(call, replace=False),
    "calendarList.update": lambda call: change_entry(call, replace=True),
    "calendarList.delete": delete_entry,
    "calendarList.watch": lambda call: watch(call, "/users/me/calendarList", "/users/me/calendarList"),
}
