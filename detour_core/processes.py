"""Whether a process has ended: for what is named by a pid (a stack's record, its proxy user's
broker socket and cgroups) and must outlive neither the process nor a wait for it."""

from __future__ import annotations

import psutil


def ended(pid: int) -> bool:
    """Gone, or exited and not yet reaped by its parent (a zombie keeps its pid)."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True
