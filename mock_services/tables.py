"""Which tables belong to which service, and each table's primary key.

Table and column names are AgentDiff's own, so its seeds import unchanged and its
assertions (which name tables as `entity`) evaluate against our diffs.
"""

from __future__ import annotations

from detour.services import Service

PRIMARY_KEYS: dict[Service, dict[str, tuple[str, ...]]] = {
    "slack": {
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
    "linear": {
        "issue_label_issue_association": ("issue_id", "issue_label_id"),
    },
}

# A table that only one service has tells a template's service apart.
SIGNATURE_TABLES: dict[str, Service] = {
    "messages": "slack",
    "channels": "slack",
    "issues": "linear",
    "workflow_states": "linear",
    "organizations": "linear",
}

DEFAULT_KEY = ("id",)


def primary_key(service: Service, table: str) -> tuple[str, ...]:
    return PRIMARY_KEYS[service].get(table, DEFAULT_KEY)
