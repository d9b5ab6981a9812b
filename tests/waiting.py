"""Waiting for something a test started: until it answers, or until it dies.

A fixed start deadline fails a start that was only slow (a 2-core machine whose cores the other
worker and other programs keep busy); a process that died is the real failure, and says so at
once. A start that hangs is bounded by pytest-timeout, not by a guess here."""

from __future__ import annotations

import subprocess
import threading
import time
from typing import Callable, TypeVar

T = TypeVar("T")


def until(ready: Callable[[], T], alive: subprocess.Popen | threading.Thread, what: str, pause: float = 0.05) -> T:
    """`ready()`'s first true value, polled while `alive` (a process or a thread) still runs."""
    while not (value := ready()):
        if isinstance(alive, threading.Thread):
            running, ended = alive.is_alive(), "the thread ended"
        else:
            running, ended = alive.poll() is None, f"the process exited with {alive.returncode}"
        if not running:  # it may have made ready what it was for just before it ended
            value = ready()
            assert value, f"{what}: {ended} first"
            return value
        time.sleep(pause)
    return value
