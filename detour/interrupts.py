"""A command's Ctrl-C (SIGINT) and SIGTERM. The first stops what the command runs: its sandboxes
end as "interrupted" within a poll, and the command still reports what was done and keeps what
the user asked to keep. A second leaves at once (the entry points print one line, no traceback).

Imports nothing of detour's: the console's quick path uses it before anything is loaded."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

INTERRUPTED_EXIT = 130  # the shell's 128 + SIGINT
SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def stopping_on_signals(stop: threading.Event, on_stop: Callable[[], None] = lambda: None) -> Iterator[None]:
    """While inside: the first signal sets `stop` and calls `on_stop` (which tells a run elsewhere:
    a blocking read here would not look at `stop`); a second raises KeyboardInterrupt."""
    def handle(number: int, frame: object) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        on_stop()

    previous = {number: signal.signal(number, handle) for number in SIGNALS}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def to_terminal(name: str, chunk: bytes) -> None:
    """A run's output as it comes, each stream to this process's own."""
    os.write(1 if name == "stdout" else 2, chunk)
