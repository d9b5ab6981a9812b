"""Rows in AgentDiff's column names, rendered as Slack's JSON objects."""

from __future__ import annotations

import hashlib

from mock_services.store import EnvState, Row


def workspace_team(state: EnvState) -> Row:
    """The workspace's team row: a seed's first (AgentDiff's seeds have one)."""
    return state.first("teams") or {}


def workspace_team_id(state: EnvState) -> str:
    return workspace_team(state).get("team_id", "")


ADMIN_ROLES = ("admin", "owner", "primary_owner")
OWNER_ROLES = ("owner", "primary_owner")
AVATAR_SIZES = (24, 32, 48, 72, 192, 512)


def workspace_roles(state: EnvState) -> dict[str, str]:
    """Each user's role in the workspace, as the seed's user_teams gives it."""
    return {row["user_id"]: str(row.get("role") or "member") for row in state.rows("user_teams")}


def user_json(user: Row, team_id: str, role: str = "member") -> dict:
    """`team_id`: the workspace's, for a user row without one of its own (Slack gives every user one);
    `role`: the user's in the workspace (user_teams), which makes Slack's admin and owner flags."""
    team_id = user.get("team_id") or team_id
    return {
        "id": user["user_id"],
        "team_id": team_id,
        "name": user.get("username", ""),
        "real_name": user.get("real_name", ""),
        "deleted": bool(user.get("is_deleted", False)),
        "is_bot": bool(user.get("is_bot", False)),
        "is_admin": bool(user.get("is_admin", False)) or role in ADMIN_ROLES,
        "is_owner": bool(user.get("is_owner", False)) or role in OWNER_ROLES,
        "is_primary_owner": bool(user.get("is_primary_owner", False)) or role == "primary_owner",
        "is_restricted": False,
        "is_ultra_restricted": False,
        "is_app_user": False,
        "is_email_confirmed": bool(user.get("email")),
        "updated": int(user.get("updated") or 0),
        "tz": user.get("timezone"),
        "tz_label": user.get("timezone") or "",
        "tz_offset": 0,
        "profile": profile_json(user, team_id),
    }


# Profile fields a user may set, each kept in a users column of the same name.
PROFILE_FIELDS = ("display_name", "real_name", "email", "first_name", "last_name", "title", "phone",
                  "pronouns", "status_text", "status_emoji", "status_expiration")


def profile_json(user: Row, team_id: str) -> dict:
    profile = {field: user.get(field) or "" for field in PROFILE_FIELDS}
    profile["status_expiration"] = user.get("status_expiration") or 0
    profile["email"] = user.get("email")
    profile["real_name_normalized"] = profile["real_name"]
    profile["display_name_normalized"] = profile["display_name"]
    profile["team"] = user.get("team_id") or team_id
    avatar = user.get("photo_sha1") or hashlib.md5(str(user.get("user_id", "")).encode()).hexdigest()
    profile |= {f"image_{size}": f"https://avatars.slack-edge.com/{avatar}_{size}.png" for size in AVATAR_SIZES}
    profile["is_custom_image"] = bool(user.get("photo_sha1"))
    return profile


NOTHING_READ = "0000000000.000000"  # Slack's read cursor before anything is read


def channel_json(state: EnvState, channel: Row, user_id: str) -> dict:
    members = state.rows("channel_members", channel_id=channel["channel_id"])
    is_dm = bool(channel.get("is_dm"))
    private = bool(channel.get("is_private"))
    body = {
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
        "created": int(channel.get("created") or 0),
        "creator": channel.get("creator_id") or "",
        "is_shared": False,
        "is_ext_shared": False,
        "is_org_shared": False,
        "is_pending_ext_shared": False,
        "pending_shared": [],
        "previous_names": [],
        "unlinked": 0,
        "is_member": any(m["user_id"] == user_id for m in members),
        "num_members": len(members),
        "topic": {"value": channel.get("topic_text") or "", "creator": "", "last_set": 0},
        "purpose": {"value": channel.get("purpose_text") or "", "creator": "", "last_set": 0},
    }
    if is_dm:  # the other person of a DM (oneself in one's own)
        body["user"] = next((m["user_id"] for m in members if m["user_id"] != user_id), user_id)
    return body


def workspace_domain(state: EnvState) -> str:
    team = workspace_team(state)
    return (team.get("team_name") or "workspace").lower().replace(" ", "-")


def message_json(state: EnvState, message: Row) -> dict:
    return messages_json(state, [message])[0]


def messages_json(state: EnvState, messages: list[Row]) -> list[dict]:
    """Messages as Slack renders them; reactions, pins and thread replies take one query each for the whole list."""
    reactions: dict[str, dict[str, list[str]]] = {}
    pins: dict[str, list[str]] = {}
    replies: dict[str, list[Row]] = {}
    ids = [m["message_id"] for m in messages]
    for r in state.rows_in("message_reactions", "message_id", ids):
        reactions.setdefault(r["message_id"], {}).setdefault(r["reaction_type"], []).append(r["user_id"])
    for p in state.rows_in("pins", "message_id", ids):
        pins.setdefault(p["message_id"], []).append(p["channel_id"])
    for m in state.rows_in("messages", "parent_id", ids):
        if m["parent_id"] != m["message_id"]:
            replies.setdefault(m["parent_id"], []).append(m)
    team = workspace_team(state).get("team_id") if messages else None
    bots = frozenset(u["user_id"] for u in state.rows("users") if u.get("is_bot")) if messages else frozenset()
    return [render_message(state, m, reactions.get(m["message_id"], {}), pins.get(m["message_id"], []), team, bots)
            | thread_json(replies.get(m["message_id"], [])) for m in messages]


def thread_json(replies: list[Row]) -> dict:
    """What a thread's parent message shows of its replies (and its own ts as the thread's, as Slack does)."""
    if not replies:
        return {}
    users = list(dict.fromkeys(r.get("user_id") for r in replies if r.get("user_id")))
    return {"thread_ts": replies[0]["parent_id"], "reply_count": len(replies), "reply_users": users, "reply_users_count": len(users),
            "latest_reply": max((r["message_id"] for r in replies), key=float)}


def bot_id(user_id: str) -> str:
    """A bot user's bot id: Slack gives bots a B… id beside their U… user id."""
    return "B" + user_id[1:]


def render_message(state: EnvState, message: Row, reactions: dict[str, list[str]], pinned_to: list[str],
                   team: str | None = None, bots: frozenset[str] = frozenset()) -> dict:
    body: dict = {
        "type": message.get("type") or "message",
        "user": message.get("user_id"),
        "text": message.get("message_text", ""),
        "ts": message["message_id"],
    }
    if message.get("user_id") in bots:
        body["bot_id"] = bot_id(message["user_id"])
    if team:
        body["team"] = team
    if message.get("subtype"):
        body["subtype"] = message["subtype"]
    for rich in ("blocks", "attachments"):
        if isinstance(message.get(rich), list):
            body[rich] = message[rich]
    if isinstance(message.get("metadata"), dict):
        body["metadata"] = message["metadata"]
    if message.get("parent_id"):
        body["thread_ts"] = message["parent_id"]
    if message.get("file_ids"):
        files = [state.first("files", file_id=f) for f in message["file_ids"]]
        body["files"] = [file_json(state, f) for f in files if f]
    if pinned_to:
        body["pinned_to"] = pinned_to
    if reactions:
        body["reactions"] = [{"name": n, "users": u, "count": len(u)} for n, u in reactions.items()]
    return body


def file_json(state: EnvState, file: Row) -> dict:
    """A file object; its URLs are on files.slack.com, which the proxy routes to this replica."""
    team = workspace_team(state)
    owner = f"{team.get('team_id', 'T')}-{file['file_id']}"
    url = f"https://files.slack.com/files-pri/{owner}/{file.get('name') or 'file'}"
    return {
        "id": file["file_id"], "created": file.get("created", 0), "timestamp": file.get("created", 0),
        "name": file.get("name", ""), "title": file.get("title") or file.get("name", ""),
        "mimetype": file.get("mimetype", "application/octet-stream"), "filetype": file.get("filetype", "binary"),
        "pretty_type": (file.get("filetype") or "binary").upper(), "user": file.get("user_id"),
        "size": file.get("size", 0), "mode": "hosted", "is_external": False, "is_public": bool(file.get("channel_ids")),
        "public_url_shared": bool(file.get("public_url_shared")), "url_private": url,
        "url_private_download": url + "?download=1",
        "permalink": f"https://{workspace_domain(state)}.slack.com/files/{file.get('user_id')}/{file['file_id']}/"
                     f"{file.get('name') or 'file'}",
        **shared_in(state, file.get("channel_ids", [])), "comments_count": 0, "alt_txt": file.get("alt_txt"),
        **(remote_fields(file) if file.get("external_id") else {}),
    }


def remote_fields(file: Row) -> dict:
    """What a remote file (files.remote.add) carries beyond a hosted one's fields."""
    return {"mode": "external", "is_external": True, "external_type": "app", "external_id": file["external_id"],
            "external_url": file.get("external_url", ""), "pretty_type": "Remote", "editable": False,
            "has_rich_preview": bool(file.get("has_preview"))}


def shared_in(state: EnvState, channel_ids: list[str]) -> dict[str, list[str]]:
    """Where a file is shared, split as Slack splits it: channels, private groups, DMs."""
    split: dict[str, list[str]] = {"channels": [], "groups": [], "ims": []}
    for channel_id in channel_ids:
        channel = state.first("channels", channel_id=channel_id) or {}
        kind = "ims" if channel.get("is_dm") else "groups" if channel.get("is_private") or channel.get("is_gc") \
            else "channels"
        split[kind].append(channel_id)
    return split
