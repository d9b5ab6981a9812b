"""The namespace backend's warm interpreter: Python programs forked from a server that has the
runtime's common client libraries imported (sandbox/forkserver.py), instead of a new
interpreter per run (~165 ms of CPU against ~5 ms for a fork).

The run's sandbox is made exactly as for any program (bwrap: mounts, PID namespace and its
reaping init, the pooled network, cgroups), but the command it starts is a holder, a shell
under the run's uid that says it is ready and waits for the agent's exit code. The backend
then sends the fork server the holder's namespaces and stdio as descriptors; the server's fork
starts the agent in them (see forkserver.py), and writes its exit code to the holder, which
exits with it. The holder's end ends the run as before: the PID namespace's init goes, and the
kernel kills whatever of the agent is left. Where the server cannot take a run, the holder is
told "cold" and runs the program itself.

Used for `python FILE`, `python -c CODE` and `python -` with the runtime's own interpreter,
in proxy mode, where cgroups count the run (the watchdog's process tree would not see the
forked agent) and the environment's clock is the real one (libfaketime is preloaded at exec).
The second such run of a process starts the runtime's server in the background and runs cold;
the server lives as long as this process (its stdin is its lifeline).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
from pathlib import Path

from sandbox import temp_folders
from sandbox.base import SandboxSpec
from sandbox.runtimes import Runtime

# "0": every Python program starts its own interpreter; "wait": the first run waits for the server
# (tests and benches that must see the warm path); otherwise it starts in the background.
WARM_VARIABLE = "DETOUR_WARM_PYTHON"
STARTING_S = 120  # the longest a "wait" run waits for a server to import its libraries
SERVER = Path(__file__).with_name("forkserver.py")
# Imported once by the server; what a runtime lacks is skipped.
MODULES = ("ssl", "json", "asyncio", "http.client", "urllib.request", "certifi", "urllib3", "requests",
           "httpx", "aiohttp", "slack_sdk", "slack_sdk.web", "slack_sdk.web.async_client")
NAMESPACES = ("cgroup", "ipc", "uts", "net", "pid", "mnt")
# The holder: ready on fd 4, then the agent's exit code (or "cold": run the program itself) on fd 3.
HOLDER = 'echo >&4; exec 4>&-; read c <&3; [ "$c" = cold ] && exec "$@" 3<&-; exit "${c:-125}"'
STATUS_FD, READY_FD, INFO_FD = 3, 4, 5
# Moves the ends given as $1..$3 to 3, 4 and 5 through copies above 9 (any end may sit at one of
# those numbers), closes the rest, and runs the command; bash, as dash takes no variable to close.
RENUMBER = ('exec {s}<&"$1" {r}>&"$2" {i}>&"$3"; a=$1 b=$2 c=$3; exec {a}<&- {b}>&- {c}>&-; '
            f'exec {STATUS_FD}<&"$s" {READY_FD}>&"$r" {INFO_FD}>&"$i" {{s}}<&- {{r}}>&- {{i}}>&-; shift 3; exec "$@"')


def enabled() -> bool:
    return os.environ.get(WARM_VARIABLE, "1") != "0"


def eligible(spec: SandboxSpec, runtime: Runtime, counted: bool) -> bool:
    """Whether this run's program may be forked from the warm interpreter."""
    argv = spec.argv
    runs_python = len(argv) >= 2 and names_the_runtime_python(argv[0], runtime) and \
        (argv[1] == "-" or (argv[1] == "-c" and len(argv) >= 3) or not argv[1].startswith("-"))
    return enabled() and runs_python and counted and spec.mode == "proxy" and spec.clock_at is None \
        and not spec.stdio


def names_the_runtime_python(word: str, runtime: Runtime) -> bool:
    """The command's first word runs the runtime's interpreter: its path, or a bare name
    (`python3`, as docs and most agents write it) that the sandbox's PATH finds as the same
    file in the runtime's own folder (a venv's python3 and python are one interpreter)."""
    if word == str(runtime.python):
        return True
    if os.sep in word or not word.startswith("python"):
        return False
    found = shutil.which(word, path=runtime.path)
    return found is not None and Path(found).parent == runtime.python.parent and os.path.samefile(found, runtime.python)


class ForkServer:
    """One interpreter's server: started in the background on first use, and again if it died;
    it ends when this process closes its stdin (exits, or stop_all)."""

    def __init__(self, python: Path, path: str) -> None:
        self.python = python
        self.path = path
        self.socket = Path()  # in a folder of its own (0700: root's alone), made at each start
        self.proc: subprocess.Popen | None = None
        self.ready = threading.Event()
        self.settled = threading.Event()  # ready, or it never will be
        self.lock = threading.Lock()
        self.asked = 0  # runs that asked for it

    def available(self) -> bool:
        """Ready to take a run; starts the server (in the background) when there is none, and
        again when one that worked has died (never again after one that never did: an
        interpreter it cannot run in). A process's first run does not start it, unless told to
        wait: that run is cold either way, and a process of one run (`detour run`) would pay the
        server's imports, about a second of CPU, for nothing."""
        waits = os.environ.get(WARM_VARIABLE) == "wait"
        with self.lock:
            self.asked += 1
            if (self.proc is None and (waits or self.asked > 1)) or \
                    (self.proc is not None and self.proc.poll() is not None and self.ready.is_set()):
                self._start()
        if waits:
            self.settled.wait(STARTING_S)
        return self.ready.is_set() and self.proc is not None and self.proc.poll() is None

    def _start(self) -> None:
        if self.proc is not None:  # one that died: its pipes, and its folder if it could not remove it
            self._close_pipes(self.proc)
            shutil.rmtree(self.socket.parent, ignore_errors=True)
        self.ready.clear()
        self.settled.clear()
        # The server removes it; killed with this process (SIGKILL), it is left for temp_folders to find.
        self.socket = Path(tempfile.mkdtemp(prefix=temp_folders.prefix("warm"))) / "server.sock"
        # Nothing of a run's: an environment of its own, no token; stdin is its lifeline.
        self.proc = subprocess.Popen(
            [str(self.python), str(SERVER), str(self.socket), *MODULES],
            env={"PATH": self.path, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"},
            cwd="/", stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True)
        threading.Thread(target=self._wait_ready, args=(self.proc,), name="detour warm python", daemon=True).start()

    def _wait_ready(self, proc: subprocess.Popen) -> None:
        assert proc.stdout is not None
        try:
            if proc.stdout.readline().strip() == b"ready":
                self.ready.set()
        except (OSError, ValueError):  # its pipe closed under it: it was stopped
            pass
        self.settled.set()

    def hand_over(self, init_pid: int, request: dict, status: int) -> None:
        """Send the run to the server: the namespaces and stdio of the sandbox's init (the holder's
        parent, in the same namespaces with the same stdio), and the holder's status pipe."""
        fds = {name: os.open(f"/proc/{init_pid}/ns/{name}", os.O_RDONLY) for name in NAMESPACES}
        try:
            for number, name in enumerate(("stdin", "stdout", "stderr")):
                fds[name] = os.open(f"/proc/{init_pid}/fd/{number}", os.O_RDONLY if number == 0 else os.O_WRONLY)
            fds["status"] = status
            body = json.dumps(request | {"fds": list(fds)}).encode()
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                conn.connect(str(self.socket))
                socket.send_fds(conn, [struct.pack("!I", len(body))], list(fds.values()))
                conn.sendall(body)
        finally:
            for name, fd in fds.items():
                if name != "status":
                    os.close(fd)

    @staticmethod
    def _close_pipes(proc: subprocess.Popen) -> None:
        for pipe in (proc.stdin, proc.stdout):
            if pipe:
                pipe.close()

    def stop(self) -> None:
        """Stop the server (its forks die with it, and each run's agent with its holder)."""
        with self.lock:
            proc, self.proc = self.proc, None
            if proc is not None:
                proc.kill()
                proc.wait()
                self._close_pipes(proc)
                shutil.rmtree(self.socket.parent, ignore_errors=True)


_SERVERS: dict[Path, ForkServer] = {}
_LOCK = threading.Lock()


def server_for(runtime: Runtime) -> ForkServer:
    """The one server of this runtime's interpreter in this process."""
    with _LOCK:
        if runtime.python not in _SERVERS:
            if not _SERVERS:
                atexit.register(stop_all)
            _SERVERS[runtime.python] = ForkServer(runtime.python, runtime.path)
        return _SERVERS[runtime.python]


def server_pids() -> list[int]:
    """The servers running now (a benchmark counts their CPU and their forks')."""
    with _LOCK:
        return [s.proc.pid for s in _SERVERS.values() if s.proc is not None and s.proc.poll() is None]


def stop_all() -> None:
    with _LOCK:
        servers = list(_SERVERS.values())
        _SERVERS.clear()
    for server in servers:
        server.stop()


def _readable(fd: int, timeout: float) -> bool:
    """Whether `fd` has something to read (or its writer left) within `timeout` seconds. poll,
    not select: select refuses a descriptor numbered past 1023, which a process running a few
    hundred sandboxes holds (the run API's server at 256 live: half the runs failed, their
    holders killed by SIGPIPE when the refused run closed the pipe they announce themselves on)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(timeout * 1000))


class WarmRun:
    """One run's pipes to its holder, and the hand-over once bwrap has made the sandbox."""

    def __init__(self, server: ForkServer, request: dict) -> None:
        self.server = server
        self.request = request
        self.status_r, self.status_w = os.pipe()
        self.ready_r, self.ready_w = os.pipe()
        self.info_r, self.info_w = os.pipe()
        self.open = {self.status_r, self.status_w, self.ready_r, self.ready_w, self.info_r, self.info_w}

    def command(self, argv: list[str]) -> list[str]:
        """The holder, in place of the program (which it runs itself when told "cold")."""
        return ["/bin/sh", "-c", HOLDER, "sh", *argv]

    def bwrap_options(self) -> list[str]:
        return ["--info-fd", str(INFO_FD)]

    def pass_fds(self) -> tuple[int, ...]:
        """The pipe ends at the numbers this process has them. Not the fixed numbers: subprocess
        makes every passed descriptor inheritable before anything of ours runs in the child, and
        in a process of many threads 3, 4 or 5 may be closed at that moment (EBADF: a suite run's
        parallel tests failed so)."""
        return self.status_r, self.ready_w, self.info_w

    def renumbered(self, argv: list[str]) -> list[str]:
        """`argv` (bwrap's) started by a shell that first moves the pipe ends to the numbers the
        holder and bwrap are given."""
        return ["/bin/bash", "-c", RENUMBER, "bash", *map(str, self.pass_fds()), *argv]

    def started(self, timeout: float) -> None:
        """bwrap runs: wait for the holder, hand the run over, or tell the holder to run it cold."""
        self._close(self.status_r, self.ready_w, self.info_w)
        try:
            self.server.hand_over(self._wait(timeout), self.request, self.status_w)
        except (OSError, ValueError, KeyError):
            with contextlib.suppress(OSError):  # the holder may be gone (bwrap failed): nothing to tell
                os.write(self.status_w, b"cold\n")
        finally:
            self.close()

    def _wait(self, timeout: float) -> int:
        """The sandbox init's pid once the holder is ready (bwrap's --info-fd names it)."""
        if not _readable(self.ready_r, timeout) or not os.read(self.ready_r, 1):
            raise OSError("the sandbox's holder never became ready")
        text = b""
        while b"}" not in text and _readable(self.info_r, timeout):
            if not (chunk := os.read(self.info_r, 4096)):
                break
            text += chunk
        return int(json.loads(text)["child-pid"])

    def _close(self, *fds: int) -> None:
        for fd in fds:
            if fd in self.open:
                self.open.discard(fd)
                os.close(fd)

    def close(self) -> None:
        """Every end this process still holds (also when the sandbox never started)."""
        self._close(*list(self.open))
