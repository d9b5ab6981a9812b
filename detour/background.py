"""A stack in the background for a detour home: the first command that needs a stack (with
no `detour serve` running) starts one, later commands reuse it, and it leaves by itself after
an idle time. A stack whose process is gone, or whose proxy no longer answers, is never
trusted: the next command starts a new one.

`DETOUR_BACKGROUND=off` keeps the old way (a stack for the one command), and
`DETOUR_STACK_IDLE_S` sets the idle time (600 s by default). It listens where `detour serve`
would (8080 and 8000, or `DETOUR_PROXY_PORT` and `DETOUR_REPLICA_PORT`), so a proxy URL stays
good across its restarts; a port another program holds gives way to a free one.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from contextlib import contextmanager
from collections.abc import Iterator
from pathlib import Path

from detour.stack import (DEFAULT_PROXY_PORT, DEFAULT_REPLICA_PORT, PROXY_PORT_VARIABLE, READY_TIMEOUT_S,
                          REPLICA_PORT_VARIABLE, StackError, StackInfo, port_free, running_stack)
from detour_core.paths import StatePaths

BACKGROUND_VARIABLE = "DETOUR_BACKGROUND"
IDLE_VARIABLE = "DETOUR_STACK_IDLE_S"
DEFAULT_IDLE_S = 600.0
# Past the stack's own start bound (READY_TIMEOUT_S): a serve that cannot start exits by itself,
# and says why, before this is reached; a slow start on busy cores is waited for.
START_TIMEOUT_S = READY_TIMEOUT_S + 30.0
STOP_GRACE_S = 15.0  # a stack's stop: its processes, the proxy user's table and cgroups


def enabled() -> bool:
    return os.environ.get(BACKGROUND_VARIABLE, "on") != "off"


def idle_seconds() -> float:
    try:
        return max(1.0, float(os.environ.get(IDLE_VARIABLE, DEFAULT_IDLE_S)))
    except ValueError:
        return DEFAULT_IDLE_S


def used_file(state: StatePaths) -> Path:
    return state.home / "stack.used"


def touch(state: StatePaths) -> None:
    """A command used the stack now: its idle time starts again."""
    used_file(state).touch()


def idle_for(state: StatePaths, since: float) -> float:
    try:
        last = max(since, used_file(state).stat().st_mtime)
    except FileNotFoundError:
        last = since
    return time.time() - last


@contextmanager
def _starting(state: StatePaths) -> Iterator[None]:
    """One command at a time starts the home's background stack; the others wait for it."""
    with open(state.home / ".stack.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def background_stack(state: StatePaths) -> StackInfo:
    """The home's running stack (`detour serve`'s or a background one), else a new background one."""
    info = running_stack(state)
    if info is None:
        with _starting(state):
            info = running_stack(state) or _start(state)
    touch(state)
    return info


def wanted_port(variable: str, default: int) -> int:
    """The port `detour serve` would take, or 0 (any free one) when another program holds it."""
    try:
        port = int(os.environ.get(variable, default))
    except ValueError:
        raise StackError(f"{variable} is a port number, not {os.environ[variable]!r}") from None
    return port if port_free("127.0.0.1", port) else 0


def _wanted() -> tuple[int, int]:
    return (wanted_port(PROXY_PORT_VARIABLE, DEFAULT_PROXY_PORT),
            wanted_port(REPLICA_PORT_VARIABLE, DEFAULT_REPLICA_PORT))


def _start(state: StatePaths) -> StackInfo:
    """On the wanted ports. A start that failed is tried once more, on the same ports unless
    another program now holds one (the check and the bind are a second apart): a start that
    failed for another reason must not move a proxy URL that users keep. Why the first failed
    stays in the background log."""
    wanted = _wanted()
    try:
        return _launch(state, wanted)
    except StackError as failed:
        again = _wanted()
        _note(state, f"detour: the background stack did not start on ports {wanted}; once more on {again}: {failed}")
        return _launch(state, again)


def log_file(state: StatePaths) -> Path:
    """What background stacks print, and why a start failed."""
    return state.home / "logs" / "background.log"


def _note(state: StatePaths, line: str) -> None:
    log = log_file(state)
    log.parent.mkdir(exist_ok=True)
    with open(log, "a") as output:
        output.write(line + "\n")


def stop_launch(process: subprocess.Popen) -> None:
    """A launch that did not come up in time is asked to stop first, so that it takes down what
    it had set up (the proxy user's nftables table, its broker socket, its cgroups); SIGKILL only
    if it does not within the grace period, since a killed stack leaves those for `doctor --fix`."""
    process.terminate()
    try:
        process.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _launch(state: StatePaths, ports: tuple[int, int]) -> StackInfo:
    log = log_file(state)
    log.parent.mkdir(exist_ok=True)
    state.stack_file.unlink(missing_ok=True)  # a dead stack's description is never trusted
    command = [sys.executable, "-m", "detour.cli", "serve", "--proxy-port", str(ports[0]),
               "--replica-port", str(ports[1]), "--idle-exit", str(idle_seconds())]
    with open(log, "ab") as output:
        start = output.tell()
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
                                   env=os.environ | {"DETOUR_HOME": str(state.home)}, start_new_session=True)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        info = running_stack(state)
        if info is not None and info.pid == process.pid:
            return info
        if process.poll() is not None:
            break
        time.sleep(0.05)
    stop_launch(process)
    with open(log, "rb") as output:
        tail = output.read()[start:][-2000:].decode(errors="replace")
    raise StackError(f"the background stack did not start (see {log}):\n{tail}")
