"""Whether a process has ended: for what is named by a pid (a stack's record, its proxy user's
broker socket and cgroups) and must outlive neither the process nor a wait for it."""

from __future__ import annotations

import psutil


def start_time(pid: int) -> float | None:
    """When the process now named by `pid` started (None: there is none), so that a later look
    can tell it from another process given the same pid once it ended."""
    try:
        return psutil.Process(pid).create_time()
    except psutil.NoSuchProcess:
        return None


def ended(pid: int, started: float | None = None) -> bool:
    """Gone, exited and not yet reaped by its parent (a zombie keeps its pid), or, where it is
    known when the process `started`, followed by another process under the same pid."""
    try:
        process = psutil.Process(pid)
        return process.status() == psutil.STATUS_ZOMBIE or (started is not None and process.create_time() != started)
    except psutil.NoSuchProcess:
        return True
