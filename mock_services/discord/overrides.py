"""Discord's rules that its OpenAPI description does not say, over the generated pack: ids are
snowflakes (numbers as text); `/users/@me` is the acting person's user and `/users/@me/guilds`
their guilds; a channel is read, changed and deleted at `/channels/{id}`; a message is written
by the acting user at the time it is sent, listed newest first (`limit`, `before`, `after`),
its `edited_timestamp` set when it changes, and a reaction of the acting user counted on it; a
message to a channel that is not there is Discord's 404; and Discord's error shape,
`{"message": "Unknown Channel", "code": 10003}`."""

from __future__ import annotations

from typing import Any

from mock_services import clock
from mock_services.rest.errors import RestError
from mock_services.rest.openapi.credentials import issuer
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import Call
from mock_services.store import Row

SNOWFLAKE = {"kind": "numeric", "digits": 19, "as": "string"}
IDS = {table: SNOWFLAKE for table in ("discord_messages", "discord_channels", "discord_members", "discord_guilds")}
DEFAULTS = {"discord_messages": {"type": 0, "tts": False, "mention_everyone": False, "mentions": [],
                                 "mention_roles": [], "attachments": [], "embeds": [], "components": [],
                                 "pinned": False, "flags": 0, "edited_timestamp": None},
            "discord_channels": {"type": 0, "flags": 0, "position": 0, "nsfw": False, "permission_overwrites": []}}
MISSING = {"discord_messages": "Unknown Message", "discord_channels": "Unknown Channel",
           "discord_members": "Unknown Member", "discord_guilds": "Unknown Guild", "discord_users": "Unknown User"}
CODES = {"Unknown Channel": 10003, "Unknown Guild": 10004, "Unknown Member": 10007, "Unknown Message": 10008,
         "Unknown User": 10013, "401: Unauthorized": 0}


def error_body(error: RestError) -> dict:
    """`{"message", "code"}` with Discord's codes (its per-field `errors` tree is left out: the
    description's union for it admits no one tree)."""
    if error.status == 400:
        return {"message": f"Invalid Form Body: {error.message}", "code": 50035}
    return {"message": error.message, "code": CODES.get(error.message, 0)}


def _now() -> str:
    return clock.utcnow().isoformat(timespec="microseconds").replace("+00:00", "+00:00")


def _me(call: Call) -> Row:
    found = call.state.first("discord_users", id=call.user)
    if found is None:
        raise RestError(401, "unauthorized", "401: Unauthorized")
    return found


def _public(user: Row) -> dict:
    """A user as others see them (no email)."""
    return {k: v for k, v in user.items() if k != "email"}


def _channel(call: Call) -> Row:
    found = call.state.first("discord_channels", id=call.params.get("channel_id"))
    if found is None:
        raise RestError(404, "resource_missing", "Unknown Channel")
    return found


def _fill(resources: Resources, call: Call, row: Row) -> Any:
    schema = resources.response(call.operation.short_id)[1]
    options = resources.schemas.resolve(schema).get("oneOf")
    return resources.schemas.fill(dict(row), options[0] if options else schema)


def get_channel(resources: Resources, call: Call) -> Any:
    return _fill(resources, call, _channel(call))


def update_channel(resources: Resources, call: Call) -> Any:
    changed = {**_channel(call), **{k: v for k, v in (call.body or {}).items() if k in ("name", "topic", "position",
                                                                                        "nsfw", "parent_id")}}
    call.state.update("discord_channels", changed)
    return _fill(resources, call, changed)


def delete_channel(resources: Resources, call: Call) -> Any:
    row = _channel(call)
    call.state.delete("discord_channels", row)
    return _fill(resources, call, row)


def create_message(resources: Resources, call: Call) -> Any:
    channel = _channel(call)
    if not any((call.body or {}).get(k) for k in ("content", "embeds", "sticker_ids", "components", "poll")):
        raise RestError(400, "invalid", "Cannot send an empty message", details={"param": "content"})
    made = resources.create(call, {"author": _public(_me(call)), "timestamp": _now()})
    call.state.update("discord_channels", {**channel, "last_message_id": made["id"]})
    return made


def update_message(resources: Resources, call: Call) -> Any:
    return resources.update(call, {"edited_timestamp": _now()})


def list_messages(resources: Resources, call: Call) -> Any:
    _channel(call)
    rows = sorted(call.state.rows("discord_messages", channel_id=call.params["channel_id"]),
                  key=lambda r: int(r["id"]), reverse=True)
    before, after = call.params.get("before"), call.params.get("after")
    rows = [r for r in rows if (not before or int(r["id"]) < int(before)) and (not after or int(r["id"]) > int(after))]
    limit = max(1, min(int(call.params.get("limit") or 50), 100))
    schema = resources.schemas.resolve(resources.response(call.operation.short_id)[1]).get("items")
    return [resources.schemas.fill(dict(r), schema) for r in rows[:limit]]


def react(resources: Resources, call: Call) -> None:
    message = resources.find(call, resources.model["resources"]["discord_messages"], call.params["message_id"])
    emoji = call.params["emoji_name"]
    reactions = [dict(r) for r in message.get("reactions") or []]
    mine = next((r for r in reactions if r["emoji"]["name"] == emoji), None)
    if mine is None:
        reactions.append({"emoji": {"id": None, "name": emoji}, "count": 1, "me": True, "burst_colors": [],
                          "count_details": {"burst": 0, "normal": 1}, "me_burst": False, "burst_me": False,
                          "burst_count": 0})
    elif not mine.get("me"):
        mine.update(count=mine["count"] + 1, me=True)
    call.state.update("discord_messages", {**message, "reactions": reactions})
    return None


def get_user(resources: Resources, call: Call) -> Any:
    found = call.state.first("discord_users", id=call.params.get("user_id"))
    if found is None:
        raise RestError(404, "resource_missing", "Unknown User")
    return _fill(resources, call, _public(found))


def me(resources: Resources, call: Call) -> Any:
    return resources.schemas.fill(dict(_me(call)), resources.response(call.operation.short_id)[1])


def get_guild(resources: Resources, call: Call) -> Any:
    found = call.state.first("discord_guilds", id=call.params.get("guild_id"))
    if found is None:
        raise RestError(404, "resource_missing", "Unknown Guild")
    return _fill(resources, call, found)


def my_guilds(resources: Resources, call: Call) -> Any:
    mine = {r["guild_id"] for r in call.state.rows("discord_members") if (r.get("user") or {}).get("id") == call.user}
    schema = resources.schemas.resolve(resources.response(call.operation.short_id)[1]).get("items")
    return [resources.schemas.fill(dict(g), schema) for g in call.state.rows("discord_guilds") if g["id"] in mine]


HANDLERS = {"get_channel": get_channel, "update_channel": update_channel, "delete_channel": delete_channel,
            "create_message": create_message, "update_message": update_message, "list_messages": list_messages,
            "add_my_message_reaction": react, "get_user": get_user, "get_my_user": me, "get_guild": get_guild,
            "list_my_guilds": my_guilds}

# Credentials: a bot token, as Discord takes it (`Authorization: Bot <token>`).
credentials = issuer("MTA.", {"DISCORD_BOT_TOKEN": "{token}"})
