"""Rows in AgentDiff's column names, rendered as Slack's JSON objects."""

from __future__ import annotations

from mock_services.store import EnvState, Row


def user_json(user: Row) -> dict:
    return {
        "id": user["user_id"],
        "team_id": user.get("team_id", ""),
        "name": user.get("username", ""),
        "real_name": user.get("real_name", ""),
        "deleted": bool(user.get("is_deleted", False)),
        "is_bot": bool(user.get("is_bot", False)),
        "is_admin": bool(user.get("is_admin", False)),
        "tz": user.get("timezone"),
        "profile": {
            "display_name": user.get("display_name", ""),
            "real_name": user.get("real_name", ""),
            "email": user.get("email"),
        },
    }


def channel_json(state: EnvState, channel: Row, user_id: str) -> dict:
    members = state.rows("channel_members", channel_id=channel["channel_id"])
    is_dm = bool(channel.get("is_dm"))
    private = bool(channel.get("is_private"))
    return {
        "id": channel["channel_id"],
        "name": channel.get("channel_name", ""),
        "name_normalized": channel.get("channel_name", ""),
        "is_channel": not (is_dm or private),
        "is_group": private and not is_dm,
        "is_im": is_dm,
        "is_mpim": bool(channel.get("is_gc")),
        "is_private": private or is_dm,
        "is_archived": bool(channel.get("is_archived")),
        "is_general": channel.get("channel_name") == "general",
        "is_member": any(m["user_id"] == user_id for m in members),
        "num_members": len(members),
        "topic": {"value": channel.get("topic_text") or "", "creator": "", "last_set": 0},
        "purpose": {"value": channel.get("purpose_text") or "", "creator": "", "last_set": 0},
    }


def message_json(state: EnvState, message: Row) -> dict:
    body: dict = {
        "type": message.get("type") or "message",
        "user": message.get("user_id"),
        "text": message.get("message_text", ""),
        "ts": message["message_id"],
    }
    if message.get("parent_id"):
        body["thread_ts"] = message["parent_id"]
    reactions = state.rows("message_reactions", message_id=message["message_id"])
    if reactions:
        by_name: dict[str, list[str]] = {}
        for r in reactions:
            by_name.setdefault(r["reaction_type"], []).append(r["user_id"])
        body["reactions"] = [{"name": n, "users": u, "count": len(u)} for n, u in by_name.items()]
    return body
