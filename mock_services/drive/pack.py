"""The Google Drive replica's descriptor: what the rest of detour knows of it."""

from pathlib import Path

from detour_core.pack import McpSurface, ServicePack

PACK = ServicePack(
    name="drive",
    hosts=("www.googleapis.com/drive/v3/", "www.googleapis.com/upload/drive/v3/", "www.googleapis.com/batch/drive/v3",
           "drive.googleapis.com/drive/v3/", "drive.googleapis.com/upload/drive/v3/",
           "drive.googleapis.com/batch/drive/v3", "oauth2.googleapis.com/token"),
    router="mock_services.drive.router:router",
    credentials="mock_services.drive.access:credentials",
    faults="mock_services.rest.google:fault_answer",
    coverage="mock_services.drive.router:API.coverage",
    templates=Path(__file__).parent / "templates",
    signature_tables=("drive_files", "drive_permissions"),
    primary_keys={"drive_permissions": ("file_id", "id"), "drive_revisions": ("file_id", "id")},
    users_table="drive_users",
    tables=("drive_users", "drive_files", "drive_permissions", "drive_revisions", "drive_comments", "drive_replies",
            "drive_changes"),
    spec="Drive v3's discovery document, as google-api-python-client ships it (spec/drive_v3.json)",
    mcp=McpSurface(hosts=("drivemcp.googleapis.com/mcp/v1",), tools=Path(__file__).parent / "spec" / "mcp_tools.json",
                   operations="mock_services.drive.mcp_tools:OPERATIONS",
                   source="Google's Drive MCP server reference (developers.google.com/workspace/drive/api/reference/mcp)"),
)
