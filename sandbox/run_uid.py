"""On the process backend started as root, each run's program runs under a uid of its own, as on
the namespace backend: an "other" to every file on the machine, so another detour home's CA key,
signing key and API key (files of mode 0600) stay closed to it, as does every 0700 folder.

The uid is claimed for the run's length with a lock on a file of its own (the kernel lets go of
it when the run or its detour ends), so two runs at once never share one. The folders the run
needs (its runtime's, the files its command names) are revealed where a closed folder on their
way (`/root`, 0700, holding pyenv's Python) would stop that uid: inside the run's own mount
namespace, a tmpfs covers the outermost closed folder and each needed folder is bound back at
its place, so nothing else that folder holds shows.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shlex
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

FIRST_UID = 300_000  # above the namespace backend's (200_000 and one per network)
SLOTS = 4096


@contextlib.contextmanager
def claimed_uid() -> Iterator[int]:
    """A uid no other run holds meanwhile."""
    locks = Path(tempfile.gettempdir()) / "detour-run-uids"
    locks.mkdir(mode=0o700, exist_ok=True)
    for slot in range(SLOTS):
        fd = os.open(locks / str(slot), os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        try:
            yield FIRST_UID + slot
        finally:
            os.close(fd)
        return
    raise RuntimeError(f"detour: all {SLOTS} run uids are taken")


def hand_over(folder: Path, uid: int) -> None:
    """The run's folder and everything in it become the run's uid's (symlinks not followed)."""
    os.lchown(folder, uid, uid)
    for parent, dirs, files in os.walk(folder):
        for name in dirs + files:
            os.lchown(Path(parent, name), uid, uid)


def closed_on_the_way(folder: Path, base: Path | None = None) -> Path | None:
    """The outermost folder on the way to `folder` (from `base` on, `base` included) that
    others may not pass, if any."""
    way = [p for p in reversed(folder.parents) if base is None or p.is_relative_to(base)]
    return next((p for p in way if not p.stat().st_mode & stat.S_IXOTH), None)


def reveal_commands(folders: list[Path], stash: Path) -> list[str]:
    """Shell commands (run as root in the run's mount namespace) that make each folder reachable
    by any uid. A folder inside another one is left to it, unless a closed folder stands
    between them: revealing the outer one makes it reachable, not what lies behind that closed
    folder, which gets a mask of its own (applied after the outer one's: its path sorts later)."""
    chosen = sorted({f.resolve() for f in folders if f.exists()})
    masks: dict[Path, list[Path]] = {}
    for folder in chosen:
        around = [o for o in chosen if o != folder and folder.is_relative_to(o)]
        if (closed := closed_on_the_way(folder, around[-1] if around else None)) is not None:
            masks.setdefault(closed, []).append(folder)
    commands = []
    for number, (mask, inside) in enumerate(sorted(masks.items())):
        held = [stash / f"{number}-{n}" for n in range(len(inside))]
        commands += [f"mkdir -p {shlex.quote(str(h))} && mount --rbind {shlex.quote(str(f))} {shlex.quote(str(h))}"
                     for f, h in zip(inside, held)]
        commands.append(f"mount -t tmpfs -o size=64k,mode=0755 detour-mask {shlex.quote(str(mask))}")
        commands += [f"mkdir -p {shlex.quote(str(f))} && mount --move {shlex.quote(str(h))} {shlex.quote(str(f))}"
                     for f, h in zip(inside, held)]
    return commands
