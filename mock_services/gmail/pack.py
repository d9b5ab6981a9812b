"""The Gmail replica's descriptor: what the rest of detour knows of it. Google's token endpoint
is every Google pack's; the proxy sends it to the one the environment holds."""

from pathlib import Path

from detour_core.pack import McpSurface, ServicePack

PACK = ServicePack(
    name="gmail",
    hosts=("gmail.googleapis.com/gmail/v1/", "gmail.googleapis.com/upload/gmail/v1/", "gmail.googleapis.com/batch",
           "www.googleapis.com/gmail/v1/", "www.googleapis.com/upload/gmail/v1/", "www.googleapis.com/batch/gmail/v1",
           "oauth2.googleapis.com/token"),
    router="mock_services.gmail.router:router",
    credentials="mock_services.gmail.mailbox:credentials",
    faults="mock_services.rest.google:fault_answer",
    coverage="mock_services.gmail.router:API.coverage",
    events="mock_services.gmail.events:EVENTS",
    act="mock_services.gmail.act:act",
    templates=Path(__file__).parent / "templates",
    signature_tables=("gmail_users", "gmail_messages"),
    primary_keys={"gmail_labels": ("user_id", "id"), "gmail_settings": ("user_id", "name"),
                  "gmail_send_as": ("user_id", "send_as_email")},
    users_table="gmail_users",
    tables=("gmail_users", "gmail_messages", "gmail_labels", "gmail_drafts", "gmail_history", "gmail_filters",
            "gmail_send_as", "gmail_settings", "gmail_watches"),
    spec="Gmail v1's discovery document, as google-api-python-client ships it (spec/gmail_v1.json)",
    mcp=McpSurface(hosts=("gmailmcp.googleapis.com/mcp/v1",), tools=Path(__file__).parent / "spec" / "mcp_tools.json",
                   operations="mock_services.gmail.mcp_tools:OPERATIONS",
                   source="Google's Gmail MCP server reference (developers.google.com/workspace/gmail/api/reference/mcp)"),
)
