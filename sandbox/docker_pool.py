"""Containers made and started ahead, so a docker run does not wait for the engine.

Creating and starting a container is most of a docker sandbox's start, and the engine does it
slowly when many runs ask at once. A pool keeps `size` containers waiting in their entrypoint
(no network, no program, no variables: those come with the run), refilled in the background.
Each is handed out once and removed after its run, as any sandbox container is; none is ever
given a second run. What the pool holds when it closes is removed with its networks, and a pool
whose process died is found by `detour doctor` (the containers carry their owner's pid).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Protocol

log = logging.getLogger(__name__)
RETRY_S = 1.0  # after a failed refill (the engine busy or gone), before the next try


class Ready(Protocol):
    """What the pool keeps: a waiting container and the network it will get."""

    cid: str


class ContainerPool:
    def __init__(self, make: Callable[[], Ready], size: int, discard: Callable[[Ready], None]) -> None:
        self.make = make
        self.size = size
        self.discard = discard
        self.ready: list[Ready] = []
        self.changed = threading.Condition()
        self.closed = False
        self.filler = threading.Thread(target=self._fill, name="detour docker pool", daemon=True)
        self.filler.start()

    def take(self) -> Ready | None:
        """A waiting container, never used before, or None when none is ready (make one then)."""
        with self.changed:
            found = self.ready.pop(0) if self.ready else None
            self.changed.notify_all()
        return found

    def wait_full(self, timeout: float) -> bool:
        """Until `size` are ready (a benchmark's or a test's starting line)."""
        with self.changed:
            return self.changed.wait_for(lambda: len(self.ready) >= self.size or self.closed, timeout)

    def _fill(self) -> None:
        while True:
            with self.changed:
                self.changed.wait_for(lambda: self.closed or len(self.ready) < self.size)
                if self.closed:
                    return
            try:
                made = self.make()
            except Exception:  # the engine failing now and then must not end the refills
                log.exception("detour: could not make a container ahead")
                with self.changed:
                    self.changed.wait_for(lambda: self.closed, RETRY_S)
                continue
            with self.changed:
                if self.closed:
                    self.discard(made)
                    return
                self.ready.append(made)
                self.changed.notify_all()

    def close(self) -> None:
        """Stop refilling; remove what is waiting."""
        with self.changed:
            self.closed = True
            left, self.ready = self.ready, []
            self.changed.notify_all()
        self.filler.join(timeout=30)
        for made in left:
            self.discard(made)
