"""The Google Calendar replica's descriptor: what the rest of detour knows of it."""

from pathlib import Path

from detour_core.pack import McpSurface, ServicePack

PACK = ServicePack(
    name="calendar",
    hosts=("www.googleapis.com/calendar/v3/", "www.googleapis.com/batch/calendar/v3",
           "calendar.googleapis.com/calendar/v3/", "calendar.googleapis.com/batch/calendar/v3",
           "oauth2.googleapis.com/token"),  # credentials that refresh (service accounts, refresh tokens)
    router="mock_services.calendar.router:router",
    credentials="mock_services.calendar.access:credentials",
    faults="mock_services.rest.google:fault_answer",
    coverage="mock_services.calendar.router:API.coverage",
    events="mock_services.calendar.events:EVENTS",
    templates=Path(__file__).parent / "templates",
    signature_tables=("calendar_events", "calendars", "calendar_list_entries"),
    primary_keys={"calendar_event_attendees": ("event_id", "email")},
    users_table="calendar_users",
    tables=("calendar_users", "calendar_settings", "calendars", "calendar_list_entries", "calendar_events",
            "calendar_event_attendees", "calendar_acl_rules", "calendar_channels"),
    spec="Calendar v3's discovery document, as google-api-python-client ships it (spec/calendar_v3.json)",
    mcp=McpSurface(hosts=("calendarmcp.googleapis.com/mcp/v1",), tools=Path(__file__).parent / "spec" / "mcp_tools.json",
                   operations="mock_services.calendar.mcp_tools:OPERATIONS",
                   source="Google's Calendar MCP server reference (developers.google.com/workspace/calendar/api/v3/reference/mcp)"),
)
