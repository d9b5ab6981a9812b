"""Events delivered over HTTP to a listener the agent registered (a webhook, Slack's Request
URL): the queues an environment sends that way, which environments have any, and one round of
sending what is due.

A pack puts a delivery in an HTTP queue with its URL, its payload and its signer (the pack's
function that makes the vendor's headers at the time of each attempt); `register` names the
queue with its retry schedule and marks the environment watched (an empty file under the
home's `events/`), so a deliverer (the proxy's EventDelivery) finds it without reading every
environment. A 2xx answer (with the challenge, where the vendor asks one) acknowledges a
delivery; any other answer, or none, leaves it for the next retry. A delivery fault of the
environment's policy (proxy_addons/event_delivery.py) may drop an attempt, hold it back, or
lose its answer, so the vendor's retry follows as it would.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from detour_core.errors import EnvironmentNotFound
from detour_core.pack import resolve
from detour_core.paths import StatePaths
from mock_services import clock
from mock_services.events import outbox

QUEUES_KEY = "http_queues"  # in the environment's meta: queue -> its retry schedule (seconds)
WATCHED = "events"


class Request(NamedTuple):
    queue: str
    delivery: outbox.Delivery  # as claimed: its id, and which attempt this is
    event: str                 # the vendor's event type, for the audit record
    url: str
    headers: dict[str, str]
    body: bytes
    expect: str | None  # text the answer must hold (a verification challenge)


class Outcome(NamedTuple):
    """What came of sending one: taken (acknowledged), or not (the vendor's retry follows), or
    held back `later_s` seconds of the environment's clock and then sent as the same attempt."""
    taken: bool
    later_s: float | None = None


def _watched_dir() -> Any:
    return StatePaths.default().home / WATCHED


def register(state: Any, queue: str, schedule: tuple[float, ...]) -> None:
    """The environment sends `queue` over HTTP from now on (after this transaction commits)."""
    queues = state.meta(QUEUES_KEY) or {}
    if queue not in queues:
        state.set_meta(QUEUES_KEY, {**queues, queue: list(schedule)})
    env_id = state.info.env_id
    state.committed.append(lambda: _touch(env_id))


def _touch(env_id: str) -> None:
    folder = _watched_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / env_id).touch()


def watched(home: Path) -> list[str]:
    """The environments under `home` with HTTP queues. The deliverer asks 50 times a second, so
    it names the home it resolved once (resolving it here cost the idle proxy a share of its CPU)."""
    try:
        return sorted(os.listdir(home / WATCHED))
    except FileNotFoundError:
        return []


class Signed(NamedTuple):
    """One attempt as the vendor sends it."""
    body: bytes
    headers: dict[str, str]
    expect: str | None = None  # text the answer must hold (a verification challenge)


def body_of(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload).encode()


def enqueue(state: Any, queue: str, delivery_id: str, url: str, event: str, payload: dict[str, Any], signer: str,
            key: str) -> None:
    """`signer(state, key, payload, attempt) -> Signed` makes each attempt (a vendor may stamp its
    body with the time it is sent: Linear's webhookTimestamp); `key` says whose secret signs it."""
    outbox.enqueue(state, queue, delivery_id, {"url": url, "event": event, "payload": payload, "sign": signer,
                                               "key": key})


def claim(store: Any, env_id: str) -> list[Request]:
    """What is due in the environment's HTTP queues, each signed for this attempt."""
    with store.open(env_id) as state:
        queues = state.meta(QUEUES_KEY) or {}
        if not any(outbox.any_due(state, q) for q in queues):
            return []
    requests = []
    with store.open(env_id, write=True) as state:
        for queue, schedule in queues.items():
            for delivery in outbox.claim_due(state, queue, tuple(schedule)):
                signed = resolve(delivery.body["sign"])(state, delivery.body["key"], delivery.body["payload"],
                                                        delivery.attempt)
                requests.append(Request(queue, delivery, delivery.body.get("event", ""), delivery.body["url"],
                                        signed.headers, signed.body, signed.expect))
    return requests


def deliver_due(store: Any, env_id: str, send: Callable[[str, Request], Outcome]) -> int:
    """One round for one environment: `send` sends a request into its sandbox; what it took is
    acknowledged, what it held back is put back. How many were taken."""
    try:
        sent = [(r, send(env_id, r)) for r in claim(store, env_id)]
        if sent:
            with store.open(env_id, write=True) as state:
                for request, outcome in sent:
                    if outcome.taken:
                        outbox.acknowledge(state, request.queue, request.delivery.id)
                    elif outcome.later_s is not None:
                        outbox.put_back(state, request.queue, request.delivery, clock.now() + outcome.later_s)
    except EnvironmentNotFound:
        (_watched_dir() / env_id).unlink(missing_ok=True)
        return 0
    return sum(outcome.taken for _, outcome in sent)
