"""What the Slack replica's state changes emit: Slack's Events API events, as data.

Each row of RULES is one change to one table and the event it emits, with the payload's
fields as Slack documents them (api.slack.com/events). An event goes to every app that turned
Socket Mode on whose user may see it (a member of its channel; for app_mention, the user the
message names), as an `events_api` envelope (socket_mode.py sends them).
"""

from __future__ import annotations

from mock_services import clock
from mock_services.events import outbox
from mock_services.events.rules import EventRule, Events, Row
from mock_services.slack import events_api
from mock_services.slack.ids import app_id, new_id, ts_string
from mock_services.slack.serializers import workspace_team_id
from mock_services.store import EnvState

APPS_KEY = "slack_socket_apps"  # the users whose apps turned Socket Mode on (apps.connections.open)


def queue(user_id: str) -> str:
    return f"slack.socket:{user_id}"


def channel_type(state: EnvState, channel_id: str | None) -> str:
    channel = state.first("channels", channel_id=channel_id) or {}
    if channel.get("is_dm"):
        return "im"
    if channel.get("is_gc"):
        return "mpim"
    return "group" if channel.get("is_private") else "channel"


def event_ts(_: EnvState, __: Row) -> str:
    return ts_string(int(clock.now() * 1_000_000))


def team(state: EnvState, _: Row) -> str:
    return workspace_team_id(state)


def reacted_message(state: EnvState, row: Row) -> Row:
    return state.first("messages", message_id=row["message_id"]) or {}


def in_channel(state: EnvState, event: Row, user_id: str) -> bool:
    channel = event["item"]["channel"] if "item" in event else event.get("channel") or event.get("channel_id")
    return state.first("channel_members", channel_id=channel, user_id=user_id) is not None


def mentions(state: EnvState, event: Row, user_id: str) -> bool:
    return f"<@{user_id}>" in event.get("text", "") and in_channel(state, event, user_id)


MESSAGE = {"channel": "channel_id", "user": "user_id", "text": "message_text", "ts": "message_id",
           "thread_ts": "parent_id", "event_ts": "message_id", "team": team}
REACTION = {"user": "user_id", "reaction": "reaction_type",
            "item": lambda s, r: {"type": "message", "channel": reacted_message(s, r).get("channel_id"),
                                  "ts": r["message_id"]},
            "item_user": lambda s, r: reacted_message(s, r).get("user_id"), "event_ts": event_ts}
MEMBERSHIP = {"user": "user_id", "channel": "channel_id", "team": team,
              "channel_type": lambda s, r: channel_type(s, r["channel_id"]), "event_ts": event_ts}


EDIT = {"subtype": lambda s, r: "message_changed", "hidden": lambda s, r: True, "channel": "channel_id",
        "ts": event_ts, "event_ts": event_ts, "channel_type": lambda s, r: channel_type(s, r["channel_id"]),
        "message": lambda s, r: {"type": "message", "user": r.get("user_id"), "text": r.get("message_text"),
                                 "ts": r["message_id"], "thread_ts": r.get("parent_id"),
                                 "edited": {"user": r.get("user_id"), "ts": event_ts(s, r)}}}
DELETION = {"subtype": lambda s, r: "message_deleted", "hidden": lambda s, r: True, "channel": "channel_id",
            "ts": event_ts, "deleted_ts": "message_id", "event_ts": event_ts,
            "channel_type": lambda s, r: channel_type(s, r["channel_id"])}
PIN = {"user": "pinned_by", "channel_id": "channel_id", "event_ts": event_ts,
       "item": lambda s, r: {"type": "message", "channel": r["channel_id"], "created_by": r.get("pinned_by"),
                             "message": {"ts": r["message_id"]}}}


def public(row: Row) -> bool:
    return not (row.get("is_private") or row.get("is_dm") or row.get("is_gc"))


RULES = (
    EventRule("messages", "insert", "message",
              {**MESSAGE, "subtype": "subtype", "channel_type": lambda s, r: channel_type(s, r["channel_id"])},
              audience=in_channel),
    EventRule("messages", "insert", "app_mention", MESSAGE, audience=mentions),
    EventRule("messages", "update", "message", EDIT, audience=in_channel),
    EventRule("messages", "delete", "message", DELETION, audience=in_channel),
    EventRule("message_reactions", "insert", "reaction_added", REACTION, audience=in_channel),
    EventRule("message_reactions", "delete", "reaction_removed", REACTION, audience=in_channel),
    EventRule("pins", "insert", "pin_added", PIN, audience=in_channel),
    EventRule("channel_members", "insert", "member_joined_channel", MEMBERSHIP, audience=in_channel),
    EventRule("channel_members", "delete", "member_left_channel", MEMBERSHIP),
    EventRule("channels", "insert", "channel_created",
              {"channel": lambda s, r: {"id": r["channel_id"], "name": r["channel_name"], "created": r.get("created"),
                                        "creator": r.get("creator_id"), "is_channel": True},
               "event_ts": event_ts}, when=public),
)


def callback(state: EnvState, event: Row, user_id: str) -> Row:
    """The event as Slack wraps it for one app: an `event_callback` with its authorizations."""
    team_id = workspace_team_id(state)
    user = state.first("users", user_id=user_id) or {}
    return {"token": "", "team_id": team_id, "api_app_id": app_id(user_id), "event": event,
            "type": "event_callback", "event_id": new_id("Ev"), "event_time": int(clock.now()),
            "authorizations": [{"enterprise_id": None, "team_id": team_id, "user_id": user_id,
                                "is_bot": bool(user.get("is_bot")), "is_enterprise_install": False}],
            "is_ext_shared_channel": False, "event_context": new_id("EC")}


def envelope(kind: str, payload: Row) -> tuple[str, Row]:
    """A Socket Mode envelope of `kind` (events_api, slash_commands, interactive) and its id."""
    envelope_id = str(clock.uuid4())
    return envelope_id, {"envelope_id": envelope_id, "payload": payload, "type": kind,
                         "accepts_response_payload": kind != "events_api"}


def deliver(state: EnvState, rule: EventRule, event: Row) -> None:
    """To each app that listens, on Socket Mode or at a Request URL, whose user may see it."""
    on_socket = state.meta(APPS_KEY) or []
    at_url = events_api.listening(state)
    for user_id in dict.fromkeys([*on_socket, *at_url]):
        if rule.audience is None or rule.audience(state, event, user_id):
            payload = callback(state, event, user_id)
            if user_id in on_socket:
                envelope_id, body = envelope("events_api", payload)
                outbox.enqueue(state, queue(user_id), envelope_id, body)
            if user_id in at_url:
                events_api.send(state, user_id, at_url[user_id], payload)


def listening(state: EnvState) -> bool:
    """An app on Socket Mode or at a Request URL."""
    return bool(state.meta(APPS_KEY) or events_api.listening(state))


EVENTS = Events(rules=RULES, deliver=deliver, listening=listening)
