"""Temporary folders that name the process that made them (`detour-<kind>-<pid>-…`: a
process-backend run's folder, code given as a string and written to a file, an executor's
workspace, an image build's context, the warm interpreter's socket), so that what a killed
detour left (SIGKILL runs no `finally`) is known to be dead and removed: by the next process
that opens a backend, and by `detour doctor --fix`. Only a maker proved gone counts: no process has its pid, or a zombie
has it, or one started after the folder last changed (the pid was used again). A live
process's folders stay."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

import psutil

KINDS = ("run", "code", "workspace", "derive", "rootfs", "warm")
NAMED = re.compile(rf"detour-(?:{'|'.join(KINDS)})-(\d+)-[^/]+")


def prefix(kind: str) -> str:
    """The name a folder of `kind` made by this process starts with (for mkdtemp)."""
    assert kind in KINDS
    return f"detour-{kind}-{os.getpid()}-"


def _maker_gone(pid: int, folder: Path) -> bool:
    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:  # killed, not yet reaped by its parent
            return True
        started = process.create_time()
    except psutil.NoSuchProcess:
        return True
    try:
        return started > folder.lstat().st_mtime  # the pid's process came after: not the maker
    except FileNotFoundError:
        return False  # its maker removed it meanwhile


def dead_folders(where: Path | None = None) -> list[Path]:
    """Folders in `where` (the system's temporary folder by default) whose maker is gone."""
    folder = where or Path(tempfile.gettempdir())
    found = []
    for path in folder.glob("detour-*-*-*") if folder.is_dir() else []:
        named = NAMED.fullmatch(path.name)
        if named and path.is_dir() and not path.is_symlink() and _maker_gone(int(named[1]), path):
            found.append(path)
    return sorted(found)


def remove_dead(where: Path | None = None) -> list[Path]:
    """Remove what `dead_folders` finds; the folders removed (another user's may not be)."""
    found = dead_folders(where)
    for path in found:
        shutil.rmtree(path, ignore_errors=True)
    return [path for path in found if not path.exists()]
