"""An environment's time and chance: every replica reads the time, and draws the ids it makes,
only through this module, so an environment can be frozen, stepped or started at a template's
"now", and two runs of the same agent in two environments of the same seed make the same rows.

The store binds the environment a call is about (`bound`) for the length of its transaction;
outside one (a server's own work) the wall clock and the system's randomness answer.

    real      the wall clock (every environment made before clocks existed, and the default)
    frozen    always `at`
    running   `at` when it was set, then on at the wall clock's speed

Draws are a hash of the environment's seed and a count kept with its state, so the n-th id an
environment makes is the same in every environment of that seed, whatever else runs meanwhile.
Credentials (tokens a caller presents) are not drawn here: they stay unguessable.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime, tzinfo
from typing import Literal, Protocol

from pydantic import BaseModel, Field

DRAWS_KEY = "clock_draws"


class Clock(BaseModel):
    mode: Literal["real", "frozen", "running"] = "real"
    at: float | None = Field(None, description="The environment's time (epoch seconds) when the clock was set.")
    since: float | None = Field(None, description="The wall clock's time then.")

    def now(self, wall: float | None = None) -> float:
        wall = time.time() if wall is None else wall
        if self.mode == "frozen" and self.at is not None:
            return self.at
        if self.mode == "running" and self.at is not None and self.since is not None:
            return self.at + (wall - self.since)
        return wall

    def set(self, at: Instant, mode: Literal["frozen", "running"] = "frozen") -> Clock:
        """`at`: epoch seconds, a datetime, or ISO 8601 text (`2025-01-06T09:00:00Z`; no zone is UTC)."""
        return Clock(mode=mode, at=instant(at), since=time.time())


Instant = float | int | str | datetime


def instant(at: Instant) -> float:
    """Epoch seconds of a time given as a number, a datetime or ISO 8601 text; ValueError naming
    the value otherwise."""
    if isinstance(at, str):
        try:
            at = datetime.fromisoformat(at.strip().replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(f"a time is ISO 8601 (2025-01-06T09:00:00Z) or epoch seconds, not {at!r}") from None
    if isinstance(at, datetime):
        return (at if at.tzinfo else at.replace(tzinfo=UTC)).timestamp()
    if isinstance(at, bool) or not isinstance(at, int | float):
        raise ValueError(f"a time is ISO 8601 text, a datetime or epoch seconds, not {at!r}")
    return float(at)


def moved(current: Clock, at: Instant | None = None, mode: Literal["frozen", "running", "real"] = "frozen",
          advance_s: float | None = None) -> Clock:
    """A clock set to `at` (or kept at its current time), `advance_s` later, in `mode`."""
    if mode == "real":
        return Clock()
    start = instant(at) if at is not None else current.now()
    return Clock().set(start + (advance_s or 0), mode)


class Holder(Protocol):
    """What the store binds: an environment's clock, its seed and a place to keep its count of draws."""

    def clock(self) -> Clock: ...

    def seed(self) -> str: ...

    def meta(self, key: str) -> object: ...

    def set_meta(self, key: str, value: object) -> None: ...


_bound: ContextVar[Holder | None] = ContextVar("detour_environment", default=None)


@contextmanager
def bound(holder: Holder) -> Iterator[None]:
    token = _bound.set(holder)
    try:
        yield
    finally:
        _bound.reset(token)


def now() -> float:
    """The bound environment's time, in epoch seconds."""
    holder = _bound.get()
    return holder.clock().now() if holder else time.time()


def utcnow() -> datetime:
    return datetime.fromtimestamp(now(), UTC)


def local(zone: tzinfo) -> datetime:
    return datetime.fromtimestamp(now(), zone)


def draw(size: int) -> bytes:
    """`size` bytes: the bound environment's next draw, or the system's where none is bound."""
    holder = _bound.get()
    if holder is None:
        import secrets
        return secrets.token_bytes(size)
    count = int(holder.meta(DRAWS_KEY) or 0)
    holder.set_meta(DRAWS_KEY, count + 1)
    out, block = b"", 0
    while len(out) < size:
        out += hashlib.sha256(f"{holder.seed()}:{count}:{block}".encode()).digest()
        block += 1
    return out[:size]


def token_hex(size: int = 16) -> str:
    return draw(size).hex()


def choice(alphabet: str, length: int) -> str:
    """`length` characters of `alphabet`, drawn evenly enough for ids (not for secrets)."""
    return "".join(alphabet[b % len(alphabet)] for b in draw(length))


def uuid4() -> uuid.UUID:
    return uuid.UUID(bytes=draw(16), version=4)
