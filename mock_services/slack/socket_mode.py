"""Slack's Socket Mode: `apps.connections.open` and the WebSocket it hands out.

An app-level token (`xapp-`, SLACK_APP_TOKEN) opens a connection: the method answers a
single-use `wss://wss-primary.slack.com/link/?ticket=...` URL (wss-backup.slack.com serves
the same), and from then on the app's events wait in its outbox (slack/events.py) until a
connection sends them. A connection says `hello`, sends each envelope as it is due, takes
acknowledgements (`{"envelope_id": ...}`), sends an unacknowledged envelope again with
`retry_attempt` and `retry_reason` on Slack's schedule (on the environment's clock), and after
a connection's lifetime says `disconnect` (`refresh_requested`) so the client opens a new one.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect

from detour_core.credentials import InvalidEnvId
from detour_core.errors import EnvironmentNotFound
from mock_services import clock
from mock_services.deps import run_call
from mock_services.events import outbox
from mock_services.slack.call import SlackCall
from mock_services.slack.errors import SlackError
from mock_services.slack.events import APPS_KEY, queue
from mock_services.slack.ids import app_id
from mock_services.slack.tokens import is_app_token
from mock_services.store import EnvironmentStore
from mock_services.timelines.run import fire_due

HOSTS = ("wss-primary.slack.com", "wss-backup.slack.com")
TICKETS_KEY = "slack_socket_tickets"
RETRIES = (3.0, 60.0, 300.0)  # unacknowledged after 3 s: again, then after 1 and after 5 minutes
LIFETIME_S = 3600.0           # on the environment's clock; then `disconnect`, `refresh_requested`
POLL_S = 0.02                 # how often a connection looks for due envelopes (events come from any process)
DEBUG_INFO = {"host": "applink-detour"}


def connections_open(call: SlackCall) -> dict:
    """A ticket for one connection of the token's app; the app's events are kept from now on."""
    if not is_app_token(call.token):
        raise SlackError("not_allowed_token_type")
    apps = call.state.meta(APPS_KEY) or []
    if call.user_id not in apps:
        call.state.set_meta(APPS_KEY, [*apps, call.user_id])
    ticket = str(uuid.uuid4())  # a credential: unguessable, not drawn from the environment's seed
    tickets = call.state.meta(TICKETS_KEY) or {}
    call.state.set_meta(TICKETS_KEY, dict([*tickets.items(), (ticket, call.user_id)][-50:]))
    return {"url": f"wss://{HOSTS[0]}/link/?ticket={ticket}&app_id={app_id(call.user_id)}"}


def redeem(store: EnvironmentStore, env_id: str, ticket: str) -> tuple[str, float] | None:
    """The app user a ticket was issued to, and the time now; a ticket works once."""
    with store.open(env_id, write=True, service="slack") as state:
        tickets = state.meta(TICKETS_KEY) or {}
        user_id = tickets.pop(ticket, None)
        if user_id is None:
            return None
        state.set_meta(TICKETS_KEY, tickets)
        return user_id, clock.now()


def due(store: EnvironmentStore, env_id: str, user_id: str, ends_at: float) -> tuple[list[dict], bool]:
    """The envelopes to send now (after the timeline's steps that came due, which may make
    some), and whether the connection's time is over. Most looks find nothing: they only read."""
    fire_due(store, env_id)
    with store.open(env_id, service="slack") as state:
        over = clock.now() >= ends_at
        if not outbox.any_due(state, queue(user_id)):
            return [], over
    with store.open(env_id, write=True, service="slack") as state:
        sent = outbox.claim_due(state, queue(user_id), RETRIES)
    return [{**d.body, "retry_attempt": d.attempt, "retry_reason": "timeout" if d.attempt else ""}
            for d in sent], over


def acknowledge(store: EnvironmentStore, env_id: str, user_id: str, envelope_id: str) -> None:
    with store.open(env_id, write=True, service="slack") as state:
        outbox.acknowledge(state, queue(user_id), envelope_id)


async def take_acks(websocket: WebSocket, store: EnvironmentStore, env_id: str, user_id: str) -> None:
    """Until the client goes: each `{"envelope_id": ...}` it sends acknowledges that envelope."""
    async for text in websocket.iter_text():
        try:
            message: Any = json.loads(text)
        except ValueError:
            continue
        if isinstance(message, dict) and isinstance(message.get("envelope_id"), str):
            await run_call(websocket, acknowledge, store, env_id, user_id, message["envelope_id"])


async def send_due(websocket: WebSocket, store: EnvironmentStore, env_id: str, user_id: str,
                   ends_at: float) -> bool:
    """Sends what is due; False once the connection should end (refreshed, or its environment gone)."""
    try:
        envelopes, over = await run_call(websocket, due, store, env_id, user_id, ends_at)
    except (EnvironmentNotFound, InvalidEnvId):
        return False
    for envelope in envelopes:
        await websocket.send_json(envelope)
    if over:
        await websocket.send_json({"type": "disconnect", "reason": "refresh_requested", "debug_info": DEBUG_INFO})
    return not over


async def link(websocket: WebSocket, env_id: str) -> None:
    """One Socket Mode connection, from its ticket to its end."""
    store: EnvironmentStore = websocket.app.state.store
    try:
        redeemed = await run_call(websocket, redeem, store, env_id, websocket.query_params.get("ticket", ""))
    except (EnvironmentNotFound, InvalidEnvId):
        redeemed = None
    if redeemed is None:
        await websocket.close(code=1008)  # before accepting: the handshake is refused (HTTP 403)
        return
    user_id, opened_at = redeemed
    await websocket.accept()
    await websocket.send_json({"type": "hello", "num_connections": 1,
                               "debug_info": {**DEBUG_INFO, "approximate_connection_time": int(LIFETIME_S)},
                               "connection_info": {"app_id": app_id(user_id)}})
    acks = asyncio.create_task(take_acks(websocket, store, env_id, user_id))
    try:
        with outbox.bell(env_id, queue(user_id)) as rung:
            while not acks.done() and await send_due(websocket, store, env_id, user_id, opened_at + LIFETIME_S):
                await wait_for(acks, rung)
        if not acks.done():
            await websocket.close()
    except (WebSocketDisconnect, RuntimeError):  # the client went while an envelope was on its way
        pass
    finally:
        acks.cancel()


async def wait_for(acks: asyncio.Task, rung: asyncio.Event) -> None:
    """Until an envelope is committed in this process, the client goes, or the next look is due."""
    ring = asyncio.ensure_future(rung.wait())
    await asyncio.wait({acks, ring}, timeout=POLL_S, return_when=asyncio.FIRST_COMPLETED)
    ring.cancel()
    rung.clear()


METHODS = {"apps.connections.open": connections_open}
