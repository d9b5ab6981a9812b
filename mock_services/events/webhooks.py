"""Events delivered over HTTP to a listener the agent registered (a webhook, Slack's Request
URL): the queues an environment sends that way, which environments have any, and one round of
sending what is due.

A pack puts a delivery in an HTTP queue with its URL, its payload and its signer (the pack's
function that makes the vendor's headers at the time of each attempt); `register` names the
queue with its retry schedule and marks the environment watched (an empty file under the
home's `events/`), so a deliverer (the proxy's EventDelivery) finds it without reading every
environment. A 2xx answer (with the challenge, where the vendor asks one) acknowledges a
delivery; any other answer, or none, leaves it for the next retry.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, NamedTuple

from detour_core.errors import EnvironmentNotFound
from detour_core.pack import resolve
from detour_core.paths import StatePaths
from mock_services.events import outbox

QUEUES_KEY = "http_queues"  # in the environment's meta: queue -> its retry schedule (seconds)
WATCHED = "events"


class Request(NamedTuple):
    queue: str
    id: str
    url: str
    headers: dict[str, str]
    body: bytes
    expect: str | None  # text the answer must hold (a verification challenge)


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


def watched() -> list[str]:
    folder = _watched_dir()
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


class Signed(NamedTuple):
    """One attempt as the vendor sends it."""
    body: bytes
    headers: dict[str, str]
    expect: str | None = None  # text the answer must hold (a verification challenge)


def body_of(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload).encode()


def enqueue(state: Any, queue: str, delivery_id: str, url: str, payload: dict[str, Any], signer: str,
            key: str) -> None:
    """`signer(state, key, payload, attempt) -> Signed` makes each attempt (a vendor may stamp its
    body with the time it is sent: Linear's webhookTimestamp); `key` says whose secret signs it."""
    outbox.enqueue(state, queue, delivery_id, {"url": url, "payload": payload, "sign": signer, "key": key})


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
                requests.append(Request(queue, delivery.id, delivery.body["url"], signed.headers, signed.body,
                                        signed.expect))
    return requests


def deliver_due(store: Any, env_id: str, post: Callable[[str, Request], bool]) -> int:
    """One round for one environment: `post` sends a request into its sandbox (True when the
    listener took it); what it took is acknowledged. How many were taken."""
    try:
        taken = [r for r in claim(store, env_id) if post(env_id, r)]
        if taken:
            with store.open(env_id, write=True) as state:
                for request in taken:
                    outbox.acknowledge(state, request.queue, request.id)
    except EnvironmentNotFound:
        (_watched_dir() / env_id).unlink(missing_ok=True)
        return 0
    return len(taken)
