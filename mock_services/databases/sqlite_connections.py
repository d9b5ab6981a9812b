"""Open SQLite connections kept between replica calls, one small set per environment file.

Opening an environment's file costs ~0.9 ms (the file, its WAL index, the schema read again);
a replica call opened it twice, most of a call's replica time (issue #52's breakdown). Kept
connections make that a lookup. They are this process's: other processes (several replica
servers, the proxy's in-process replicas) keep their own, and WAL serialises their writes as
before.

A kept connection is tied to the file it opened (device and inode): when the environment is
deleted, or deleted and made again under the same id (here or in another process), the path
no longer names that file and the connection is closed instead of used (SQLite sees that its
file has moved, so that close neither checkpoints nor deletes the new file's log by name). Idle ones close after
`IDLE_SECONDS`, and at most `MOST_KEPT` stay open in all, least recently used going first.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

IDLE_SECONDS = 60.0
MOST_PER_FILE = 4     # calls of one environment at once that each find one ready
MOST_KEPT = 256       # file descriptors and page caches held across all environments


@dataclass
class _Idle:
    conn: sqlite3.Connection
    identity: tuple[int, int]  # (st_dev, st_ino) of the file it opened
    since: float


class KeptConnections:
    """Idle connections by path; `take` gives one (kept or new), `give_back` keeps it again."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: OrderedDict[tuple[str, int], _Idle] = OrderedDict()  # (path, serial) in LRU order
        self._serial = 0

    def take(self, path: Path) -> tuple[sqlite3.Connection, tuple[int, int]]:
        """A connection to the file `path` names now; FileNotFoundError when it names none."""
        try:
            stat = os.stat(path)
        except FileNotFoundError:
            self.forget(path)
            raise
        identity = (stat.st_dev, stat.st_ino)
        key = str(path)
        stale: list[sqlite3.Connection] = []
        found = None
        with self._lock:
            self._expire(time.monotonic(), stale)
            for slot, idle in list(self._idle.items()):
                if slot[0] != key:
                    continue
                if idle.identity != identity:
                    stale.append(self._idle.pop(slot).conn)
                elif found is None:
                    found = self._idle.pop(slot).conn
        _close(stale)
        if found is not None:
            return found, identity
        return sqlite3.connect(path, isolation_level=None, timeout=30, check_same_thread=False), identity

    def give_back(self, path: Path, conn: sqlite3.Connection, identity: tuple[int, int]) -> None:
        """Keep `conn` for the next call, unless it is mid-transaction or there are enough."""
        if conn.in_transaction:
            conn.close()
            return
        key = str(path)
        evicted: list[sqlite3.Connection] = []
        with self._lock:
            if sum(1 for slot in self._idle if slot[0] == key) >= MOST_PER_FILE:
                evicted.append(conn)
            else:
                self._serial += 1
                self._idle[(key, self._serial)] = _Idle(conn, identity, time.monotonic())
                while len(self._idle) > MOST_KEPT:
                    evicted.append(self._idle.popitem(last=False)[1].conn)
        _close(evicted)

    def forget(self, path: Path) -> None:
        """Close every kept connection of `path` (its environment is being removed)."""
        key = str(path)
        with self._lock:
            closing = [self._idle.pop(slot).conn for slot in list(self._idle) if slot[0] == key]
        _close(closing)

    def count(self, path: Path | None = None) -> int:
        with self._lock:
            return sum(1 for slot in self._idle if path is None or slot[0] == str(path))

    def _expire(self, now: float, into: list[sqlite3.Connection]) -> None:
        while self._idle:
            slot, idle = next(iter(self._idle.items()))
            if now - idle.since < IDLE_SECONDS:
                return
            del self._idle[slot]
            into.append(idle.conn)


def _close(connections: list[sqlite3.Connection]) -> None:
    for conn in connections:
        conn.close()


KEPT = KeptConnections()  # this process's
