"""The detour stack: the replica server and the proxy, as two child processes.

`detour serve` runs one in the foreground and records it in stack.json (`--only proxy|replicas`:
stack-<part>.json); `detour run` uses a live whole stack or proxy-only server, else a
background one (detour.background) or one of its own for the duration of the run. Liveness
is read from the kernel's table of listening sockets, never by connecting to the proxy
(which would record a connection without a request).
Separate processes, because one mitmdump saturates a core on its own: `workers` proxies share
the proxy's ports (SO_REUSEPORT) so that a stack can use every core, and where that measured
faster each answers routed requests from the replica app in its own process (the replica
server still serves the platform API). In compose.yaml each part runs in a container of its own (`detour serve --only
proxy|replicas`).
"""

from __future__ import annotations

import ctypes
import http.client
import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from detour_core.errors import DetourError
from detour_core.policy import MOST_REQUEST_BYTES, Policy, save_policy, server_policy_file
from detour_core.paths import API_AUTH_VARIABLE, HOME_VARIABLE, LOOPBACK, SANDBOX_ADDRESSES, STACK_VARIABLE, StatePaths
from sandbox.base import ProxyAccess

# A part that dies is seen at once; this bounds only one that hangs (a start on a machine whose
# cores are busy with other work took over 30 s).
READY_TIMEOUT_S = 120.0
PR_SET_PDEATHSIG = 1
# A part started again that dies before it is ready this many times in a row cannot run (its port is
# taken, its files are gone): the stack then ends, saying why.
REVIVALS = 5


class StackError(DetourError):
    pass


Part = Literal["replicas", "proxy", "dns"]
PARTS: tuple[Part, ...] = ("replicas", "proxy", "dns")
# A stack for one command: the proxy answers the replicas itself, and nobody calls the platform API.
EMBEDDED: tuple[Part, ...] = ("proxy", "dns")


class StackInfo(BaseModel):
    """What a client needs to reach a running stack; stack.json holds one."""

    host: str
    proxy_port: int
    transparent_port: int
    dns_port: int
    gateway_port: int
    replica_port: int
    pid: int
    replica_host: str | None = None  # where the proxy finds the replicas, when not beside it
    parts: tuple[Part, ...] = PARTS  # `detour serve --only` runs fewer
    idle_exit_s: float | None = None  # a background stack: it leaves after this long unused

    @property
    def replica_address(self) -> str:
        return f"{self.replica_host or self.host}:{self.replica_port}"

    @property
    def replica_url(self) -> str:
        return f"http://{self.replica_address}"

    def access(self, env_id: str, secret: str) -> ProxyAccess:
        return ProxyAccess(env_id=env_id, secret=secret, host=self.host, port=self.proxy_port,
                           transparent_port=self.transparent_port, dns_port=self.dns_port,
                           gateway_port=self.gateway_port)


LOWEST_PORT = 10_000
# `detour serve`'s ports and a background stack's, unless these variables name others.
PROXY_PORT_VARIABLE, DEFAULT_PROXY_PORT = "DETOUR_PROXY_PORT", 8080
REPLICA_PORT_VARIABLE, DEFAULT_REPLICA_PORT = "DETOUR_REPLICA_PORT", 8000


def _ephemeral_floor() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port(host: str, promised: set[int] | None = None) -> int:
    """A port free now, for a child to bind in a moment, and not among the ports `promised` to
    the stack's other children, which joins it. None of those is bound yet, so a bind cannot
    tell (a likely cause of a CI failure: the replica server's given port was in use when it
    bound). Chosen below the kernel's ephemeral range: a port from that range can be taken by
    any outgoing connection in between (seen in CI: a proxy worker's bind failed with EADDRINUSE)."""
    floor, promised = _ephemeral_floor(), promised if promised is not None else set()
    for _ in range(100):
        port = random.randrange(LOWEST_PORT, floor) if floor > LOWEST_PORT + 1000 else 0
        if port in promised:
            continue
        with socket.socket() as s:
            try:
                s.bind((host, port))
            except OSError:
                continue
            port = s.getsockname()[1]
        promised.add(port)
        return port
    raise StackError(f"no free port on {host}")


def port_free(host: str, port: int) -> bool:
    """Nothing listens on it (a listener's TIME_WAIT connections do not count)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def _stop(processes: list[subprocess.Popen]) -> None:
    """SIGTERM to all, then each gets 5 s to leave before SIGKILL."""
    for proc in processes:
        if proc.poll() is None:
            proc.terminate()
    for proc in processes:
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _die_with_parent() -> None:
    """Children get SIGTERM if detour dies, so no stack outlives its owner."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _listened(port: int) -> bool:
    """A socket of this network namespace listens on the port. The kernel's table says so
    without a connection, which the proxy would record as one that made no request."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            local, _, state = row.split()[1:4]
            if state == "0A" and int(local.rpartition(":")[2], 16) == port:  # 0A: LISTEN
                return True
    return False


def _listening(pid: int, port: int) -> bool:
    """This very process listens on the port (with shared ports, another worker may already)."""
    import psutil
    try:
        return any(c.status == psutil.CONN_LISTEN and c.laddr.port == port
                   for c in psutil.Process(pid).net_connections("tcp"))
    except psutil.Error:
        return False


def _replica_healthy(host: str, port: int) -> bool:
    try:
        conn = http.client.HTTPConnection(host, port, timeout=1)
        conn.request("GET", "/api/platform/health")
        return conn.getresponse().status == 200
    except OSError:
        return False


def record_file(state: StatePaths, parts: tuple[Part, ...]) -> Path:
    """Where a running `detour serve` describes itself: stack.json for a whole stack (the
    quick path of `detour run` reads it), stack-<part>.json for `--only proxy|replicas`."""
    whole = "proxy" in parts and "replicas" in parts
    return state.stack_file if whole else state.home / f"stack-{parts[0]}.json"


def _alive(record: Path) -> StackInfo | None:
    try:
        info = StackInfo.model_validate_json(record.read_text())
        os.kill(info.pid, 0)
    except (OSError, ValueError):
        return None
    return info if _listened(info.proxy_port if "proxy" in info.parts else info.replica_port) else None


class Death(BaseModel):
    """A stack process that died while its stack ran (killed, crashed), and was started again."""

    at: float
    name: str
    pid: int
    returncode: int

    def text(self) -> str:
        how = f"signal {signal.Signals(-self.returncode).name}" if self.returncode < 0 else f"exit {self.returncode}"
        return f"{self.name} (pid {self.pid}, {how})"


def deaths_file(state: StatePaths) -> Path:
    """Where a stack notes its processes' deaths, for the runs under way then to report."""
    return state.home / "logs" / "deaths.jsonl"


def deaths_since(state: StatePaths, since: float) -> list[Death]:
    try:
        lines = deaths_file(state).read_text().splitlines()
    except OSError:
        return []
    deaths = [Death.model_validate_json(line) for line in lines if line.strip()]
    return [death for death in deaths if death.at >= since]


def running_stacks(state: StatePaths) -> list[StackInfo]:
    """Every server this home's records describe whose process is alive and listens."""
    records = [record_file(state, parts) for parts in (PARTS, EMBEDDED, ("replicas",))]
    return [info for info in map(_alive, records) if info is not None]


def running_stack(state: StatePaths) -> StackInfo | None:
    """The stack runs go through: a whole one, else a proxy-only `detour serve --only proxy`."""
    return next((info for info in running_stacks(state) if "proxy" in info.parts), None)


class Stack:
    def __init__(self, state: StatePaths, host: str = "127.0.0.1", proxy_port: int = 0, replica_port: int = 0,
                 parts: tuple[Part, ...] = PARTS, replica_host: str | None = None, console_logs: bool = False,
                 api_auth: bool = True, policy: Policy | None = None, upstream_hosts: dict[str, str] | None = None,
                 upstream_ca: Path | None = None, replicas_in_process: bool | None = None, workers: int = 1,
                 audit_segment_mb: int | None = None, fast_path: bool = True) -> None:
        """`replica_host`: the replicas run elsewhere (another container), at replica_port.
        `api_auth=False` lets callers of the platform API in without a key (loopback only).
        `policy`: the server's network policy, for every environment. `upstream_hosts` (name ->
        address) and `upstream_ca`: where allowed hosts are reached and which CA vouches for them,
        instead of DNS and the system's CAs. `replicas_in_process`: the proxy answers routed
        requests from the replica app itself rather than over HTTP (never when the replicas run
        elsewhere). By default it does so where `make bench` found it faster: with more than one
        worker, and in a stack without a replica server. One worker that also runs the replicas
        serves fewer concurrent requests than one that hands them to the server's core.
        `workers`: how many proxy processes share the proxy's ports. `audit_segment_mb`: the
        size at which an environment's records start a new file (the proxy's default: 64).
        `fast_path`: the proxy carries plain replica-bound tunnels outside mitmproxy's layers,
        answering from the replica app in its own process (proxy_addons/fast_path.py; never when
        the replicas run elsewhere); off, to hold the two against each other (`make bench`)."""
        if workers < 1:
            raise DetourError(f"a stack needs at least one proxy worker, not {workers}")
        if not api_auth and host not in LOOPBACK:
            raise DetourError(f"the platform API may skip its key only on loopback, not on {host}")
        self.state = state.ensure()
        self.api_auth = api_auth
        self.parts = parts
        self.console_logs = console_logs
        given = {port for port in (proxy_port, replica_port) if port}
        self.info = StackInfo(host=host, proxy_port=proxy_port or free_port(host, given),
                              transparent_port=free_port(host, given), dns_port=free_port(host, given),
                              gateway_port=free_port(host, given), replica_host=replica_host,
                              replica_port=replica_port or free_port(host, given), pid=os.getpid(), parts=parts)
        self.processes: dict[str, subprocess.Popen] = {}
        self.failed_starts: dict[str, int] = {}  # a part's starts in a row that died before it was ready
        self.log_starts: dict[str, int] = {}  # where each process's output begins in its (appended) log
        self.upstream_hosts = upstream_hosts or {}
        self.upstream_ca = upstream_ca
        if replicas_in_process is None:
            replicas_in_process = workers > 1 or "replicas" not in parts
        self.replicas_in_process = replicas_in_process and replica_host is None
        self.fast_path = fast_path and replica_host is None  # it answers from the replica app in its process
        self.workers = workers
        self.audit_segment_mb = audit_segment_mb
        from detour.proxy_user import ProxyUser  # a stack's, not a reader's of stack.json (the CLI's)
        self.proxy_user = ProxyUser(self.state)  # detour/proxy_user.py: as root, the proxy runs as its own user
        save_policy(server_policy_file(self.state), policy or Policy())

    def _spawn(self, name: str, argv: list[str]) -> subprocess.Popen:
        """Output goes to logs/<name>.log, or to detour's own console (in a container, so
        that the engine collects it)."""
        logs = self.state.home / "logs"
        logs.mkdir(exist_ok=True)
        with open(logs / f"{name}.log", "ab") as log:
            self.log_starts[name] = log.tell()
            proc = subprocess.Popen(argv, stdout=None if self.console_logs else log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, env=os.environ | self._child_variables(),
                                    preexec_fn=_die_with_parent)
        self.processes[name] = proc
        return proc

    def _child_variables(self) -> dict[str, str]:
        variables = {HOME_VARIABLE: str(self.state.home), API_AUTH_VARIABLE: "on" if self.api_auth else "off"}
        if "proxy" in self.parts and "replicas" in self.parts:  # the run API needs both
            variables[STACK_VARIABLE] = self.info.model_dump_json()
        return variables

    def proxy_argv(self) -> list[str]:
        from certs.authority import CertificateAuthority
        from detour.proxy_egress import proxy_destinations
        from detour_core.credentials import load_or_create_key
        from mock_services.databases import database_url

        ca = CertificateAuthority(self.state).ensure()
        load_or_create_key(self.state.signing_key)
        opened = proxy_destinations(self.info.replica_address, database_url(self.state))
        files = self.proxy_user.files(ca.mitmproxy_ca.parent, self.upstream_ca, opened, self.upstream_hosts)
        return self.proxy_user.wrap([
            sys.executable, "-m", "proxy_addons", "-q",
            "--mode", f"regular@{self.info.host}:{self.info.proxy_port}",
            "--mode", f"transparent@{self.info.host}:{self.info.transparent_port}",
            "--mode", f"reverse:{self.info.replica_url}@{self.info.host}:{self.info.gateway_port}",
            "--set", f"confdir={files.confdir}",
            "--set", "connection_strategy=lazy",
            "--set", "upstream_cert=false",
            "--set", f"body_size_limit={MOST_REQUEST_BYTES}",
            "--set", f"detour_replica={self.info.replica_address}",
            "--set", f"detour_signing_key={files.signing_key}",
            "--set", f"detour_audit_dir={self.state.audit_dir}",
            "--set", f"detour_policies_dir={self.state.policies_dir}",
            "--set", f"detour_secrets_dir={self.state.secrets_dir}",
            "--set", f"detour_policy={server_policy_file(self.state)}",
            "--set", f"detour_sandbox_addresses={SANDBOX_ADDRESSES}",
            "--set", f"detour_replicas_in_process={str(self.replicas_in_process).lower()}",
            "--set", f"detour_fast_path={str(self.fast_path).lower()}",
            "--set", f"detour_reuse_port={str(self.workers > 1).lower()}",
            *self.upstream_argv(files.upstream_ca),
            *(["--set", f"detour_audit_segment_mb={self.audit_segment_mb}"] if self.audit_segment_mb else []),
        ])

    def upstream_argv(self, upstream_ca: Path | None) -> list[str]:
        """Where allowed hosts' answers come from when a test (or a closed network) has its own."""
        argv = []
        if self.upstream_hosts:
            argv += ["--set", "detour_upstream_hosts=" + ",".join(f"{n}={a}" for n, a in self.upstream_hosts.items())]
        if upstream_ca:
            argv += ["--set", f"ssl_verify_upstream_trusted_ca={upstream_ca}"]
        return argv

    def dns_argv(self) -> list[str]:
        return [sys.executable, "-m", "sandbox.dns", self.info.host, str(self.info.dns_port)]

    def replica_argv(self) -> list[str]:
        """httptools and uvloop named, not left to uvicorn's "auto", which would fall back to h11
        and asyncio unseen: they cut the server's own CPU a call by a quarter to a third (#52)."""
        return [sys.executable, "-m", "uvicorn", "detour.apps.server:create_stack_app", "--factory",
                "--host", self.info.host, "--port", str(self.info.replica_port),
                "--http", "httptools", "--loop", "uvloop", "--log-level", "warning", "--no-access-log"]

    def _names(self, part: Part) -> list[str]:
        """A process name per copy of a part: proxy, proxy-2, ..."""
        copies = self.workers if part == "proxy" else 1
        return [part] + [f"{part}-{n}" for n in range(2, copies + 1)]

    def _argv(self, part: Part) -> list[str]:
        return {"replicas": self.replica_argv, "proxy": self.proxy_argv, "dns": self.dns_argv}[part]()

    def _ready(self, name: str) -> None:
        """Wait until the process `name` answers (replicas) or listens (proxy)."""
        proc, part = self.processes[name], name.split("-")[0]
        ready = {"replicas": lambda: _replica_healthy(self.info.host, self.info.replica_port),
                 "proxy": lambda: _listening(proc.pid, self.info.proxy_port)}
        if part in ready:
            self._wait(name, ready[part])

    def _last_words(self, name: str) -> str:
        """The last line a process that died at its start wrote (a traceback's ends in its error),
        so that the one line a user sees names the cause."""
        with open(self.state.home / "logs" / f"{name}.log", "rb") as log:
            log.seek(self.log_starts.get(name, 0))
            lines = [line.strip() for line in log.read()[-4000:].decode(errors="replace").splitlines() if line.strip()]
        return f": {lines[-1]}" if lines else ""

    def start(self) -> StackInfo:
        try:
            if "proxy" in self.parts:
                self._check_ports_free()
            for part in self.parts:
                for name in self._names(part):
                    self._spawn(name, self._argv(part))
            for name in list(self.processes):
                self._ready(name)
        except BaseException:
            self.stop()
            raise
        return self.info

    def restart(self, part: Part) -> None:
        """The part's processes anew on the same ports: the proxy after `detour ca rotate`, so
        that it signs with the new CA (it reads the CA once, at start)."""
        names = self._names(part) if part in self.parts else []
        _stop([self.processes.pop(name) for name in names if name in self.processes])
        for name in names:
            self._spawn(name, self._argv(part))
        for name in names:
            self._ready(name)

    def revive(self) -> list[Death]:
        """Each of the stack's processes that died (a proxy worker killed, a replica server that
        crashed) started again on its ports, and its death noted for the runs it touched: the
        stack outlives the loss of any one of its processes."""
        dead = [(name, proc) for name, proc in self.processes.items() if proc.poll() is not None]
        deaths = [Death(at=time.time(), name=name, pid=proc.pid, returncode=proc.returncode) for name, proc in dead]
        if deaths:
            with open(deaths_file(self.state), "a") as notes:
                notes.writelines(death.model_dump_json() + "\n" for death in deaths)
        for name, _ in dead:
            self._spawn(name, self._argv(name.split("-")[0]))  # type: ignore[arg-type]
        for name, _ in dead:
            try:
                self._ready(name)
                self.failed_starts.pop(name, None)
            except StackError:  # killed again while it started, or it cannot start: the next look tries anew
                self.failed_starts[name] = self.failed_starts.get(name, 0) + 1
                if self.failed_starts[name] >= REVIVALS:
                    raise
        return deaths

    def _check_ports_free(self) -> None:
        """Workers bind with SO_REUSEPORT, which would quietly share a port with another stack's
        workers: a plain bind first tells a port in use from a free one."""
        for port in (self.info.proxy_port, self.info.transparent_port, self.info.gateway_port):
            if not port_free(self.info.host, port):
                raise StackError(f"cannot listen on {self.info.host}:{port}: another program does")

    def _wait(self, name: str, ready) -> None:
        proc, deadline = self.processes[name], time.monotonic() + READY_TIMEOUT_S
        while not ready():
            if proc.poll() is not None:
                raise StackError(f"{name} exited with {proc.returncode}{self._last_words(name)}; "
                                 f"see {self.state.home / 'logs' / f'{name}.log'}")
            if time.monotonic() > deadline:
                raise StackError(f"stack not ready after {READY_TIMEOUT_S:.0f} s; see {self.state.home / 'logs'}")
            time.sleep(0.05)

    def stop(self) -> None:
        _stop(list(self.processes.values()))
        self.processes.clear()
        self.proxy_user.close()

    def __enter__(self) -> StackInfo:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
