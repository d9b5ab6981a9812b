"""The Box replica's descriptor: what the rest of detour knows of it."""

from pathlib import Path

from detour_core.pack import McpSurface, ServicePack

PACK = ServicePack(
    name="box",
    hosts=("api.box.com", "upload.box.com",  # the API, and uploads (`/api/2.0/files/content`, upload sessions)
           "dl.boxcloud.com"),               # where a download's 302 points
    router="mock_services.box.router:router",
    credentials="mock_services.box.access:credentials",
    faults="mock_services.box.errors:fault_answer",
    coverage="mock_services.box.router:API.coverage",
    templates=Path(__file__).parent / "templates",
    signature_tables=("box_files", "box_folders", "box_file_versions"),
    users_table="box_users",
    user_email="login",
    tables=("box_users", "box_groups", "box_group_memberships", "box_folders", "box_files", "box_file_versions",
            "box_folder_locks", "box_web_links", "box_comments", "box_tasks", "box_task_assignments",
            "box_collaborations", "box_hubs", "box_hub_items", "box_metadata_templates", "box_metadata_instances",
            "box_webhooks"),
    events="mock_services.box.events:EVENTS",
    spec="Box's official Python SDK (PyPI boxsdk, box_sdk_gen's managers and schemas; spec/box_sdk.json)",
    mcp=McpSurface(hosts=("mcp.box.com",), tools=Path(__file__).parent / "spec" / "mcp_tools.json",
                   operations="mock_services.box.mcp_tools:OPERATIONS",
                   source="Box's hosted MCP server's tool names (developer.box.com's Box MCP server guide)"),
)
