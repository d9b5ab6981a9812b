"""The Linear replica's descriptor: what the rest of detour knows of it (see detour_core.registry)."""

from pathlib import Path

from detour_core.pack import McpSurface, ServicePack

PACK = ServicePack(
    name="linear",
    hosts=("api.linear.app",),
    router="mock_services.linear.router:router",
    faults="mock_services.linear.faults:answer",
    coverage="mock_services.linear.router:schema.coverage",
    templates=Path(__file__).parent / "templates",
    signature_tables=("issues", "workflow_states", "organizations"),
    primary_keys={"issue_label_issue_association": ("issue_id", "issue_label_id")},
    tables=("organizations", "users", "teams", "team_memberships", "workflow_states", "issues", "issue_labels",
            "issue_label_issue_association", "issue_relations", "issue_history", "issue_subscribers", "comments",
            "reactions", "attachments", "projects", "project_teams", "project_members", "project_milestones",
            "cycles", "favorites", "webhooks"),
    spec="@linear/sdk's type declarations (schema/generate.py writes schema/linear.graphql)",
    warm_up="mock_services.linear.router:schema",  # the whole schema: about half a second
    credentials="mock_services.linear.keys:credentials",
    events="mock_services.linear.events:EVENTS",
    act="mock_services.linear.act:act",
    mcp=McpSurface(hosts=("mcp.linear.app/mcp",), tools=Path(__file__).parent / "spec" / "mcp_tools.json",
                   sse=("mcp.linear.app/sse",), operations="mock_services.linear.mcp_tools:OPERATIONS",
                   source="Linear's hosted MCP server's tool names (linear.app/docs/mcp)", oauth=True),
)
