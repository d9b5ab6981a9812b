"""What the Calendar replica's state changes emit: push notifications to watch channels.

A channel (`events.watch`, `calendarList.watch`: an `id`, an `address`, optionally a `token`)
gets a `sync` message when it is made, then an `exists` message each time its resource changes
(an event of the calendar made, changed or deleted; an entry of the user's calendar list), as
Google sends them: a POST with no body to the address, with `X-Goog-Channel-ID`,
`X-Goog-Channel-Token`, `X-Goog-Channel-Expiration`, `X-Goog-Resource-ID`,
`X-Goog-Resource-URI`, `X-Goog-Resource-State` and `X-Goog-Message-Number` (into the sandbox:
mock_services/events/webhooks.py). An answer of 500, 502, 503 or 504 (or none) is retried with
exponential backoff (Google gives no times: 1, 2, 4, 8, 16 and 32 seconds of the environment's
clock); the channel ends with `channels.stop` or its expiration.
"""

from __future__ import annotations

from email.utils import formatdate
from typing import Any

from mock_services import clock
from mock_services.events import webhooks
from mock_services.events.rules import EventRule, Events, Row
from mock_services.store import EnvState

CHANNELS, NUMBERS_KEY = "calendar_channels", "calendar_channel_messages"
WATCHED = "https://www.googleapis.com/calendar/v3"
RETRIES = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
SIGNER = "mock_services.calendar.events:signed"


def queue(channel_id: str) -> str:
    return f"calendar.channel:{channel_id}"


EVENTS_OF = {"resource": lambda s, r: f"/calendars/{r['calendar_id']}/events", "user": lambda s, r: None}
LIST_OF = {"resource": lambda s, r: "/users/me/calendarList", "user": "user_id"}
RULES = tuple(EventRule(table, change, "exists", fields)
              for table, fields in (("calendar_events", EVENTS_OF), ("calendar_list_entries", LIST_OF))
              for change in ("insert", "update", "delete"))


def live(channel: Row) -> bool:
    expiration = channel.get("expiration")
    return not expiration or expiration > clock.now() * 1000


def send(state: EnvState, channel: Row, resource_state: str) -> None:
    numbers = state.meta(NUMBERS_KEY) or {}
    number = numbers.get(channel["id"], 0) + 1
    state.set_meta(NUMBERS_KEY, {**numbers, channel["id"]: number})
    webhooks.enqueue(state, queue(channel["id"]), str(clock.uuid4()), channel["address"], resource_state,
                     {"state": resource_state, "number": number}, SIGNER, channel["id"])


def deliver(state: EnvState, rule: EventRule, event: Row) -> None:
    """To each live channel on the changed resource (a calendar list: its user's own)."""
    for channel in state.rows(CHANNELS, resource_uri=event["resource"]):
        if live(channel) and (event.get("user") is None or channel.get("user_id") == event["user"]):
            send(state, channel, "exists")


def channel_made(state: EnvState, channel: Row) -> None:
    """A new channel: sent over HTTP from now on, beginning with Google's `sync` message."""
    webhooks.register(state, queue(channel["id"]), RETRIES)
    send(state, channel, "sync")


def listening(state: EnvState) -> bool:
    return state.first(CHANNELS) is not None


def signed(state: EnvState, channel_id: str, payload: dict[str, Any], attempt: int) -> webhooks.Signed:
    """Google's headers (a channel stopped meanwhile still names itself, as its last row had it)."""
    channel = state.first(CHANNELS, id=channel_id) or {"id": channel_id}
    headers = {"Content-Type": "application/json; charset=UTF-8", "User-Agent": "APIs-Google",
               "X-Goog-Channel-ID": channel_id, "X-Goog-Resource-ID": channel.get("resource_id") or "",
               "X-Goog-Resource-URI": f"{WATCHED}{channel.get('resource_uri', '')}?alt=json",
               "X-Goog-Resource-State": payload["state"], "X-Goog-Message-Number": str(payload["number"])}
    if channel.get("token"):
        headers["X-Goog-Channel-Token"] = channel["token"]
    if channel.get("expiration"):
        headers["X-Goog-Channel-Expiration"] = formatdate(channel["expiration"] / 1000, usegmt=True)
    return webhooks.Signed(b"", headers)


EVENTS = Events(rules=RULES, deliver=deliver, listening=listening)
