"""Which of the Calendar replica's REST operations backs each tool of Google's Calendar MCP
server (`https://calendarmcp.googleapis.com/mcp/v1`); the tools are in spec/mcp_tools.json, in
Google's camelCase fields, and their list answers are named as that server names them
(`calendars`, `events`). A tool not named here (suggest_time, respond_to_event) answers that the
replica does not back it."""

from __future__ import annotations

from typing import Any

from mock_services.mcp.operations import Arguments, Operation, Rest

API = "/calendar/v3"
EVENTS = API + "/calendars/{calendarId}/events"
EVENT = EVENTS + "/{eventId}"
PAGING = {"pageSize": "maxResults", "query": "q", "startTime": "timeMin", "endTime": "timeMax"}


def _primary(arguments: Arguments) -> Arguments:
    return {"calendarId": "primary", **arguments}


def _event(arguments: Arguments) -> Arguments:
    """An event tool's flat fields as the API's event."""
    given = _primary(arguments)
    for field, key in (("startTime", "start"), ("endTime", "end")):
        if field in given:
            given[key] = {"dateTime": given.pop(field)}
    if "attendeeEmails" in given:
        given["attendees"] = [{"email": email} for email in given.pop("attendeeEmails")]
    return given


def _listed(name: str):
    """A list answer as the MCP server gives it: its items under `name`, and the next page's token."""
    def shape(body: Any) -> Any:
        return {name: body.get("items", []), **({"nextPageToken": body["nextPageToken"]}
                                                 if body.get("nextPageToken") else {})}
    return shape


OPERATIONS: dict[str, Operation] = {
    "list_calendars": Rest("GET", API + "/users/me/calendarList", rename=PAGING, shape=_listed("calendars")),
    "list_events": Rest("GET", EVENTS, rename=PAGING, prepare=_primary, shape=_listed("events")),
    "get_event": Rest("GET", EVENT, prepare=_primary),
    "create_event": Rest("POST", EVENTS, prepare=_event),
    "update_event": Rest("PATCH", EVENT, prepare=_event),
    "delete_event": Rest("DELETE", EVENT, prepare=_primary),
}
