"""The Slack replica's descriptor: what the rest of detour knows of it (see detour_core.registry)."""

from pathlib import Path

from detour_core.pack import McpSurface, ServicePack

PACK = ServicePack(
    name="slack",
    hosts=("slack.com", "api.slack.com",
           "files.slack.com",  # upload URLs of files.getUploadURLExternal, files' url_private
           "wss-primary.slack.com", "wss-backup.slack.com"),  # Socket Mode's WebSocket
    router="mock_services.slack.router:router",
    templates=Path(__file__).parent / "templates",
    credentials="mock_services.slack.tokens:credentials",
    faults="mock_services.slack.faults:answer",
    coverage="mock_services.slack.catalogue:coverage",
    events="mock_services.slack.events:EVENTS",
    act="mock_services.slack.router:act",
    mcp=McpSurface(hosts=("mcp.slack.com/mcp",), tools=Path(__file__).parent / "spec" / "mcp_tools.json",
                   operations="mock_services.slack.mcp_tools:OPERATIONS",
                   source="Slack's hosted MCP server's tool names (docs.slack.dev/ai/slack-mcp-server)"),
    signature_tables=("messages", "channels"),
    primary_keys={
        "teams": ("team_id",),
        "users": ("user_id",),
        "channels": ("channel_id",),
        "user_teams": ("user_id", "team_id"),
        "channel_members": ("channel_id", "user_id"),
        "messages": ("message_id",),
        "message_reactions": ("message_id", "user_id", "reaction_type"),
        "scheduled_messages": ("scheduled_message_id",),
        "pins": ("channel_id", "message_id"),
        "bookmarks": ("bookmark_id",),
        "stars": ("user_id", "item_key"),
        "reminders": ("reminder_id",),
        "user_groups": ("usergroup_id",),
        "user_group_members": ("usergroup_id", "user_id"),
        "files": ("file_id",),
        "file_contents": ("file_id",),
        "revoked_tokens": ("token_sha256",),
        "emoji": ("name",),
    },
    row_defaults={"channels": {"is_archived": False}},
    tables=("teams", "users", "user_teams", "channels", "channel_members", "messages", "message_reactions",
            "scheduled_messages", "pins", "bookmarks", "stars", "reminders", "user_groups", "user_group_members",
            "files", "file_contents", "revoked_tokens", "emoji"),
    spec="slack_sdk's WebClient methods (catalogue.py holds one row per method)",
)
