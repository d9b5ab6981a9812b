"""Memory, process and CPU-time caps for one sandbox, from cgroup v2 or v1 where available.

The kernel enforces memory and processes (an allocation past the limit is OOM-killed
inside the group, a fork past pids.max fails), so they hold even between two watchdog
samples; the events counters tell which limit was hit. CPU time is the whole group's
usage, so a program cannot spread its work over many processes to escape RLIMIT_CPU.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

from sandbox.base import KilledReason, Limits, LimitsVia

ROOT = Path("/sys/fs/cgroup")
PREFIX = "detour-"
MB = 1024 * 1024


def counter(path: Path, key: str) -> int:
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


def _v2_usable() -> bool:
    try:
        enabled = (ROOT / "cgroup.subtree_control").read_text().split()
    except OSError:
        return False
    return {"memory", "pids"} <= set(enabled)


def _v1_usable() -> bool:
    return all(os.access(ROOT / c, os.W_OK) for c in ("memory", "pids"))


def available() -> LimitsVia | None:
    if _v2_usable():
        return "cgroup v2"
    if _v1_usable():
        return "cgroup v1"
    return None


def group_dirs(name: str, via: LimitsVia) -> dict[str, Path]:
    """The memory, pids and (where writable) cpu folders of group `name` (a path below the root)."""
    if via == "cgroup v2":
        return {"memory": ROOT / name, "pids": ROOT / name, "cpu": ROOT / name}
    dirs = {"memory": ROOT / "memory" / name, "pids": ROOT / "pids" / name}
    if os.access(ROOT / "cpuacct", os.W_OK):
        dirs["cpu"] = ROOT / "cpuacct" / name
    return dirs


def limit_breach(dirs: dict[str, Path], via: LimitsVia) -> KilledReason | None:
    """Which limit the kernel enforced on the group: an OOM kill, or a fork past pids.max."""
    events = "memory.events" if via == "cgroup v2" else "memory.oom_control"
    if counter(dirs["memory"] / events, "oom_kill") > 0:
        return "memory"
    if counter(dirs["pids"] / "pids.events", "max") > 0:
        return "processes"
    return None


class CgroupLimits:
    def __init__(self, name: str, limits: Limits, via: LimitsVia) -> None:
        self.via = via
        self.cpu_ns = limits.cpu_s * 1_000_000_000
        self.dirs = group_dirs(name, via)
        if via == "cgroup v2":
            files = {"memory.max": limits.memory_mb * MB, "memory.swap.max": 0, "pids.max": limits.processes}
        else:
            files = {"memory.limit_in_bytes": limits.memory_mb * MB, "pids.max": limits.processes}
        for folder in set(self.dirs.values()):
            folder.mkdir(exist_ok=True)
        for file, value in files.items():
            target = self.dirs["pids" if file.startswith("pids") else "memory"] / file
            if target.exists():
                target.write_text(str(value))
        swap = self.dirs["memory"] / "memory.memsw.limit_in_bytes"
        if swap.exists():
            swap.write_text(str(limits.memory_mb * MB))

    @classmethod
    def create(cls, sid: str, limits: Limits) -> CgroupLimits | None:
        via = available()
        return cls(PREFIX + sid, limits, via) if via else None

    def attach(self) -> None:
        """Runs in the child before exec: everything it starts stays in the group."""
        for folder in set(self.dirs.values()):
            (folder / "cgroup.procs").write_text(str(os.getpid()))

    def breach(self) -> KilledReason | None:
        return limit_breach(self.dirs, self.via) or ("cpu" if self.cpu_used_ns() > self.cpu_ns else None)

    def cpu_counter(self) -> Callable[[], int] | None:
        """cpu_used_ns, where the group counts its CPU."""
        return self.cpu_used_ns if "cpu" in self.dirs else None

    def cpu_used_ns(self) -> int:
        folder = self.dirs.get("cpu")
        if folder is None:
            return 0
        if self.via == "cgroup v2":
            return counter(folder / "cpu.stat", "usage_usec") * 1000
        try:
            return int((folder / "cpuacct.usage").read_text())
        except (OSError, ValueError):
            return 0

    def remove(self) -> None:
        _remove(set(self.dirs.values()))


def _remove(folders: set[Path]) -> None:
    """Kill whatever is left in each group, then remove the group."""
    deadline = time.monotonic() + 5
    for folder in folders:
        while folder.exists():
            try:
                pids = [int(p) for p in (folder / "cgroup.procs").read_text().split()]
            except OSError:
                pids = []
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:
                folder.rmdir()
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.01)


def _candidates(sid: str = "*") -> list[Path]:
    return [p for base in (ROOT, ROOT / "memory", ROOT / "pids", ROOT / "cpuacct") if base.is_dir()
            for p in base.glob(PREFIX + sid) if p.is_dir()]


def destroy(sid: str) -> None:
    """Remove sandbox `sid`'s groups wherever they are (after a crash too)."""
    _remove(set(_candidates(sid)))


def group_ids() -> set[str]:
    return {p.name[len(PREFIX):] for p in _candidates()}
