"""Deliveries waiting to be sent or acknowledged, kept in the environment's own state.

A queue is a list under one meta key, written in the transaction of the change that made its
event, so any process of a stack (a proxy worker, the replica server) may send it. A delivery
is sent when it is due on the environment's clock; until it is acknowledged it is due again
after the next delay of the vendor's schedule, and after the last it is dropped. A queue holds
at most `LIMIT` deliveries: an app that never reads them does not grow the state without end.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pydantic import BaseModel

from mock_services import clock

LIMIT = 200
# Who waits on which queue in this process (a Socket Mode connection): a delivery committed here
# wakes them at once; one committed by another process is found by their next look.
_bells: dict[tuple[str, str], set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = {}
_bells_lock = threading.Lock()


class Delivery(BaseModel):
    id: str
    body: dict[str, Any]
    attempt: int = 0    # how many times it was sent before
    due: float          # when it goes (again), on the environment's clock


def _key(queue: str) -> str:
    return f"outbox:{queue}"


def waiting(state: Any, queue: str) -> list[Delivery]:
    return [Delivery(**d) for d in state.meta(_key(queue)) or []]


def _keep(state: Any, queue: str, deliveries: list[Delivery]) -> None:
    state.set_meta(_key(queue), [d.model_dump() for d in deliveries[-LIMIT:]])


def enqueue(state: Any, queue: str, delivery_id: str, body: dict[str, Any]) -> None:
    _keep(state, queue, [*waiting(state, queue), Delivery(id=delivery_id, body=body, due=clock.now())])
    state.committed.append(lambda: _ring(state.info.env_id, queue))


def _ring(env_id: str, queue: str) -> None:
    with _bells_lock:
        listeners = list(_bells.get((env_id, queue), ()))
    for loop, bell in listeners:
        loop.call_soon_threadsafe(bell.set)


@contextmanager
def bell(env_id: str, queue: str) -> Iterator[asyncio.Event]:
    """An event set when a delivery to the queue commits in this process (clear it after waking)."""
    listener = (asyncio.get_running_loop(), asyncio.Event())
    with _bells_lock:
        _bells.setdefault((env_id, queue), set()).add(listener)
    try:
        yield listener[1]
    finally:
        with _bells_lock:
            _bells[(env_id, queue)].discard(listener)
            if not _bells[(env_id, queue)]:
                del _bells[(env_id, queue)]


def any_due(state: Any, queue: str) -> bool:
    now = clock.now()
    return any(d.due <= now for d in waiting(state, queue))


def claim_due(state: Any, queue: str, schedule: tuple[float, ...]) -> list[Delivery]:
    """The deliveries due now, each with the attempt it is (0 the first); the queue then holds
    each for its next retry, or not at all when the schedule has none left."""
    now, kept, due = clock.now(), [], []
    for delivery in waiting(state, queue):
        if delivery.due > now:
            kept.append(delivery)
            continue
        due.append(delivery)
        if delivery.attempt < len(schedule):
            kept.append(delivery.model_copy(update={"attempt": delivery.attempt + 1,
                                                    "due": now + schedule[delivery.attempt]}))
    _keep(state, queue, kept)
    return due


def put_back(state: Any, queue: str, delivery: Delivery, due: float) -> None:
    """A claimed delivery goes again at `due` as the same attempt (it was held back, not sent)."""
    others = [d for d in waiting(state, queue) if d.id != delivery.id]
    _keep(state, queue, [*others, delivery.model_copy(update={"due": due})])


def acknowledge(state: Any, queue: str, delivery_id: str) -> bool:
    """Received: it is not sent again. False for an id the queue does not hold."""
    before = waiting(state, queue)
    after = [d for d in before if d.id != delivery_id]
    if len(after) != len(before):
        _keep(state, queue, after)
    return len(after) != len(before)
