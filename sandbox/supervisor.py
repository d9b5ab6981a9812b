"""Start a process and watch it until it exits or breaks a limit: shared by every backend.

Output is read as it streams and capped; the process tree is sampled for wall time,
memory and process count; a backend may add its own breach check (a cgroup's counters).
"""

from __future__ import annotations

import contextlib
import functools
import os
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil

from sandbox.base import Execution, KilledReason, Limits, LimitsVia, RunControl

POLL_S = 0.02
IDLE_POLL_S = 0.5  # the longest wait between two looks at a sandbox that spends no CPU
MB = 1024 * 1024


class OutputCapture:
    """Keeps at most `limit` bytes of stdout and stderr in all, fed by readers as they stream;
    `echo` gets each chunk kept as it comes (a caller watching the run)."""

    def __init__(self, limit: int, echo: Callable[[str, bytes], None] | None = None) -> None:
        self.limit = limit
        self.echo = echo
        self.kept = 0
        self.exceeded = threading.Event()
        self.lock = threading.Lock()
        self.chunks: dict[str, list[bytes]] = {"stdout": [], "stderr": []}
        self.readers: list[threading.Thread] = []

    def follow(self, reader: Callable[[], None]) -> None:
        """Run a reader (which calls feed) in a thread of its own."""
        thread = threading.Thread(target=reader, daemon=True)
        thread.start()
        self.readers.append(thread)

    def feed(self, name: str, chunk: bytes) -> None:
        with self.lock:
            room = max(self.limit - self.kept, 0)
            self.chunks[name].append(chunk[:room])
            self.kept += min(len(chunk), room)
            if len(chunk) > room:
                self.exceeded.set()
        if self.echo is not None and not self.exceeded.is_set():
            self.echo(name, chunk)

    def finish(self) -> tuple[str, str]:
        for t in self.readers:
            t.join(timeout=2)
        with self.lock:
            out, err = (b"".join(self.chunks[n]).decode("utf-8", "replace") for n in ("stdout", "stderr"))
        return out, err


def _pump(stream, name: str, capture: OutputCapture) -> None:
    """Read a stream to its end into `capture`."""
    fd = stream.fileno()
    while chunk := os.read(fd, 65536):
        capture.feed(name, chunk)
    stream.close()


def echo_of(control: RunControl | None, stdio: bool) -> Callable[[str, bytes], None] | None:
    """Where a run's output goes as it comes: to the caller's control, else (a stdio server,
    whose answers are its stdout) to this process's stdout."""
    if control is not None and control.output is not None:
        return control.output
    return _stdout if stdio else None


def _stdout(name: str, chunk: bytes) -> None:
    if name == "stdout":
        os.write(sys.stdout.fileno(), chunk)


def stopped(control: RunControl | None) -> bool:
    return control is not None and control.stop.is_set()


def descendants(pid: int) -> list[int] | None:
    """The pids below `pid`, from /proc/PID/task/TID/children: reads the tree's own entries, where
    psutil's children() reads every process on the machine to find them (at 50 samples a second
    that was most of detour's CPU in a run). None where the kernel keeps no such files."""
    found, parents = [], [pid]
    while parents:
        parent = parents.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except OSError:
            if parent == pid and not os.path.exists(f"/proc/{pid}"):
                raise psutil.NoSuchProcess(pid) from None
            continue
        for task in tasks:
            try:
                with open(f"/proc/{parent}/task/{task}/children", "rb") as f:
                    children = [int(child) for child in f.read().split()]
            except FileNotFoundError:
                if parent == pid and os.path.exists(f"/proc/{parent}/task/{task}"):
                    return None  # the task is there, its children file is not: no CONFIG_PROC_CHILDREN
                continue
            except OSError:
                continue
            found += children
            parents += children
    return found


def _process(pid: int) -> psutil.Process | None:
    try:
        return psutil.Process(pid)
    except psutil.NoSuchProcess:
        return None


class Watchdog:
    """Samples the process tree and names the first limit it breaks."""

    def __init__(self, pid: int, limits: Limits, deadline: float) -> None:
        self.root = psutil.Process(pid)
        self.limits = limits
        self.deadline = deadline
        self.seen: dict[int, psutil.Process] = {pid: self.root}

    def tree(self) -> list[psutil.Process]:
        try:
            pids = descendants(self.root.pid)
            children = self.root.children(recursive=True) if pids is None else [*filter(None, map(_process, pids))]
        except psutil.NoSuchProcess:
            children = []
        self.seen.update((p.pid, p) for p in children)
        return [self.root, *children]

    def overdue(self) -> KilledReason | None:
        return "timeout" if time.monotonic() > self.deadline else None

    def breach(self) -> KilledReason | None:
        if self.overdue():
            return "timeout"
        tree = self.tree()
        if len(tree) > self.limits.processes:
            return "processes"
        rss = 0
        for proc in tree:
            try:
                rss += proc.memory_info().rss
            except psutil.Error:
                continue
        return "memory" if rss > self.limits.memory_mb * MB else None

    def kill_all(self) -> None:
        """The process group first, then anything that left it (setsid) but was seen."""
        try:
            os.killpg(self.root.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        for proc in [*self.seen.values(), *self.tree()]:
            try:
                proc.kill()
            except psutil.Error:
                continue


class Pace:
    """Whether to look at a sandbox's limits, and how long to wait before asking again: only a
    program that runs can break a limit, so a look only when its group spent CPU since the last
    ask, and waits of POLL_S while it does, doubling up to IDLE_POLL_S while it spends none (an
    agent waiting for its model). 50 looks a second cost ~17 ms of CPU a second per sandbox:
    more than two cores for 256 idle ones. Without a count of the group's CPU (`spent`), a look
    every POLL_S."""

    def __init__(self, spent: Callable[[], int] | None) -> None:
        self.spent = spent
        self.last = -1
        self.wait = POLL_S

    def busy(self) -> bool:
        if self.spent is None:
            return True
        now = self.spent()
        busy, self.last = now != self.last, now
        self.wait = POLL_S if busy else min(self.wait * 2, IDLE_POLL_S)
        return busy


@contextlib.contextmanager
def exit_wait(proc: subprocess.Popen) -> Iterator[Callable[[float], None]]:
    """A wait of at most some seconds that ends when `proc` exits: on its pidfd, which wakes the
    moment it does, where Popen.wait(timeout) sleeps and polls in growing steps."""
    try:
        fd = os.pidfd_open(proc.pid)
    except OSError:
        yield lambda seconds: _popen_wait(proc, seconds)
        return
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    try:
        yield lambda seconds: poller.poll(seconds * 1000) and None
    finally:
        os.close(fd)


def _popen_wait(proc: subprocess.Popen, seconds: float) -> None:
    try:
        proc.wait(seconds)
    except subprocess.TimeoutExpired:
        pass


def exit_code(returncode: int) -> int:
    """Shell convention: 128 + signal number for a process killed by a signal."""
    return returncode if returncode >= 0 else 128 - returncode


def supervise(argv: list[str], *, env: dict[str, str], cwd: Path, limits: Limits, stdin: bytes,
              limits_via: LimitsVia, preexec: Callable[[], None],
              extra_breach: Callable[[], KilledReason | None] = lambda: None, live: bool = False,
              control: RunControl | None = None, spent: Callable[[], int] | None = None,
              pass_fds: tuple[int, ...] = (), on_start: Callable[[], None] | None = None) -> Execution:
    """`live`: the program reads this process's own stdin and its stdout is written to ours as it
    comes (kept as well): a stdio server, such as an MCP server, talks to whoever started detour.
    `control`: where its output goes as it comes, and the stop that ends it early. `spent`: the
    CPU its whole group has used (ns), which paces the looks (Pace). `pass_fds`: descriptors
    the program keeps; `on_start`: called once it runs, before its stdin is written."""
    started = time.monotonic()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=None if live else subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True, preexec_fn=preexec, pass_fds=pass_fds)
    capture = OutputCapture(limits.output_bytes, echo_of(control, live))
    for stream, name in ((proc.stdout, "stdout"), (proc.stderr, "stderr")):
        capture.follow(functools.partial(_pump, stream, name, capture))
    watchdog = Watchdog(proc.pid, limits, started + limits.timeout_s)
    if on_start is not None:
        on_start()
    if not live:
        _feed(proc, stdin)
    killed: KilledReason | None = None
    pace = Pace(spent)
    with exit_wait(proc) as wait:
        while proc.poll() is None and killed is None:
            killed = ("interrupted" if stopped(control) else "output" if capture.exceeded.is_set()
                      else (extra_breach() or watchdog.breach()) if pace.busy() else watchdog.overdue())
            if killed is None:  # returns as soon as the program exits; never past the deadline
                wait(min(pace.wait, max(watchdog.deadline - time.monotonic(), 0.0)))
    watchdog.kill_all()
    returncode = proc.wait()
    stdout, stderr = capture.finish()
    killed = killed or ("output" if capture.exceeded.is_set() else None) or extra_breach()
    if killed is None and returncode == -signal.SIGXCPU:
        killed = "cpu"
    return Execution(exit_code=exit_code(returncode), stdout=stdout, stderr=stderr,
                     timed_out=killed == "timeout", killed_reason=killed,
                     duration_ms=round((time.monotonic() - started) * 1000, 1), limits_via=limits_via)


def _feed(proc: subprocess.Popen, data: bytes) -> None:
    try:
        if data:
            proc.stdin.write(data)
        proc.stdin.close()
    except BrokenPipeError:
        pass
