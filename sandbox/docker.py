"""The `docker` backend: each sandbox is a container whose only way out is detour's proxy.

The container starts with no network at all (network mode `none`). detour then gives its
network namespace the namespace backend's veth and nftables table (sandbox/netns.py), so
the same transparent capture and the same rejections apply, and the image's entrypoint
(sandbox/images/entry.py) waits for that network before it runs anything. The container
runs as a non-root user on a read-only root with tmpfs for /tmp and the work directory,
with no capabilities, no new privileges, and memory, CPU and pids limits; of the host it
mounts only the CA's public files (and an executor's workspace, as its work directory). The
run's command and variables, the program, and any host file the command names (an agent
script) reach it over stdin, the files as copies in the work directory, not as mounts; so a
container made ahead (sandbox/docker_pool.py) learns only then whose run it is.
"""

from __future__ import annotations

import atexit
import io
import json
import os
import sys
import signal
import socket
import tarfile
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import docker
import docker.errors
from docker.types import Ulimit
from docker.utils.socket import frames_iter

from detour_core.errors import DetourError
from detour_core.paths import StatePaths
from detour_core.registry import replicated_hosts
from sandbox import cgroups
from sandbox.base import (SYSTEM_CERTS, Execution, KilledReason, Limits, LimitsVia, Sandbox, SandboxSpec,
                          TrustFiles)
from sandbox.docker_pool import ContainerPool
from sandbox.variables import clock_variables, sandbox_environment
from sandbox.runtimes import PRELUDES, SYSTEM_PATH, Runtime
from sandbox.images.build import IMAGES, WGETRC
from sandbox.images import entry
from sandbox.images.entry import frame
from sandbox.netns import SandboxNetwork, teardown
from sandbox.workspace import prepare_workspace
from sandbox.supervisor import MB, POLL_S, OutputCapture, echo_of, exit_code, stopped

IMAGE = IMAGES["sandbox"]
HOME = Path("/home/agent")
AGENT_UID = 1000  # the image's user `agent`
OWN = Path("/opt/detour")  # where detour's files are in a sandbox container
IMAGE_RUNTIME = Runtime(python=OWN / "venv/bin/python3", node=Path("/usr/local/bin/node"), preludes=OWN / "preludes")
IMAGE_TRUST = TrustFiles(cert=Path("/run/detour-ca/ca.pem"), bundle=Path("/run/detour-ca/bundle.pem"),
                         wgetrc=OWN / "wgetrc")
# Where other distributions keep their system store (an --image of theirs): the bundle and the
# Java trust store are shown there too, as /etc/ssl/certs is (Debian, Ubuntu, Alpine).
OTHER_SYSTEM_STORES = (("ca-certificates.crt", Path("/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem")),
                       ("ca-certificates.crt", Path("/etc/ssl/ca-bundle.pem")),
                       ("java/cacerts", Path("/etc/pki/ca-trust/extracted/java/cacerts")))
ENTRY = ["python3", str(OWN / "entry.py")]
IMAGE_FOLDERS = [Path(f) for f in ("/bin", "/sbin", "/usr", "/lib", "/lib64", "/etc", "/opt", "/var")]
SHIPPED_DIR = ".detour-files"  # in the work directory: host files a command names
CPUS = 1.0  # a sandbox gets one core's worth of CPU time per second
LABEL = "detour.sandbox"
OWNER_LABEL = "detour.owner"
STREAMS = {1: "stdout", 2: "stderr"}
POOL_VARIABLE = "DETOUR_DOCKER_POOL"  # containers kept started ahead per image (default: none)
ENGINE_WAIT_S = 300


class DockerUnavailable(DetourError):
    pass


def connect_engine() -> docker.DockerClient:
    """The engine DOCKER_HOST (or the default socket) names. It gets ENGINE_WAIT_S to answer
    a call, not docker-py's minute: an engine busy beside two test workers on two cores has been
    seen to take longer than a minute over a GET, which failed runs that would have gone on (the
    docker CLI waits as long as it takes)."""
    try:
        client = docker.from_env(max_pool_size=64, timeout=ENGINE_WAIT_S)
        client.ping()
    except docker.errors.DockerException as e:
        raise DockerUnavailable(f"no Docker engine: {e}") from None
    return client


def connect() -> docker.DockerClient:
    """The engine, with the sandbox image in place."""
    client = connect_engine()
    try:
        client.images.get(IMAGE)
    except docker.errors.ImageNotFound:
        raise DockerUnavailable(f"the image {IMAGE} is missing: run `detour images build`") from None
    return client


@dataclass(frozen=True)
class SandboxImage:
    """An image sandboxes run in, and what detour brings into it read-only (host -> inside)."""

    tag: str
    runtime: Runtime
    brings: tuple[tuple[Path, Path], ...] = ()


DETOUR_IMAGE = SandboxImage(IMAGE, IMAGE_RUNTIME)


def foreign_image(client: docker.DockerClient, tag: str) -> SandboxImage:
    """Any image with python3: detour brings its entrypoint, preludes and wgetrc (the CA files
    come as for its own image), and the interpreters are the image's, found on its PATH."""
    try:
        config = client.images.get(tag).attrs["Config"]
    except docker.errors.ImageNotFound:
        raise DockerUnavailable(f"no image {tag} in this Docker engine (`docker images` lists them)") from None
    path = next((e.partition("=")[2] for e in config.get("Env") or [] if e.startswith("PATH=")), SYSTEM_PATH)
    runtime = Runtime(python=Path("python3"), node=Path("node"), preludes=IMAGE_RUNTIME.preludes, search_path=path)
    brings = ((Path(entry.__file__), OWN / "entry.py"), (PRELUDES, IMAGE_RUNTIME.preludes), (WGETRC, IMAGE_TRUST.wgetrc))
    return SandboxImage(tag, runtime, brings)


def container_environment(spec: SandboxSpec, proxy_host: str, runtime: Runtime = IMAGE_RUNTIME) -> dict[str, str]:
    """The variables of a sandbox container that reaches detour at `proxy_host`: the docker
    backend's, and compose's `agent` service's (`detour env vars`)."""
    return sandbox_environment(spec, IMAGE_TRUST, runtime, proxy_host=proxy_host) | clock_variables(spec) | {
        "HOME": str(HOME), "TMPDIR": "/tmp"}


def host_files(argv: list[str], state_home: Path) -> dict[str, Path]:
    """Host files a command names (an agent script), outside the folders the image has of its
    own and never detour's state: each is copied into the work directory, and the command
    names the copy."""
    private = [*IMAGE_FOLDERS, state_home.resolve()]
    named = {}
    for index, word in enumerate(argv):
        path = Path(word)
        if path.is_absolute() and path.is_file() and not any(path.resolve().is_relative_to(f) for f in private):
            named[word] = Path(SHIPPED_DIR, str(index), path.name)
    return named


def container_argv(argv: list[str], shipped: dict[str, Path]) -> list[str]:
    return [str(HOME / shipped[word]) if word in shipped else word for word in argv]


def payload(spec: SandboxSpec, shipped: dict[str, Path], host_ip: str, runtime: Runtime) -> bytes:
    """The run for the entrypoint: its command and variables, then its files as a tar, each
    framed; the program's stdin follows. None of it is in the container's configuration (a
    pool makes containers before it knows whose run they are)."""
    run = {"argv": container_argv(spec.argv, shipped), "env": container_environment(spec, host_ip, runtime)}
    files = {Path(spec.program.name): spec.program} if spec.program else {}
    files |= {inside: Path(word) for word, inside in shipped.items()}
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w") as tar:
        for inside, source in files.items():
            info = tar.gettarinfo(str(source), arcname=str(inside))
            info.uid = info.gid = 0
            info.mode = 0o644
            with source.open("rb") as f:
                tar.addfile(info, f)
    return frame(json.dumps(run).encode()) + frame(archive.getvalue()) + spec.stdin


def host_config(client: docker.DockerClient, limits: Limits, workspace: Path | None, trust: TrustFiles,
                host_ip: str, image: SandboxImage = DETOUR_IMAGE) -> dict:
    """The isolation: no network but detour's (added after start), a read-only root, no
    capabilities, limits, and the CA's public files. Names resolve as in a namespace sandbox."""
    disk = f"size={limits.disk_mb}m"
    return client.api.create_host_config(
        network_mode="none", read_only=True, init=True,
        dns=[host_ip], dns_opt=["timeout:2", "attempts:2"], extra_hosts={host: host_ip for host in replicated_hosts()},
        # exec: programs build and run binaries there (`go run`, a compiler's a.out), as on the namespace backend
        tmpfs={"/tmp": f"{disk},mode=1777,exec"} | (
            {} if workspace else {str(HOME): f"{disk},uid={AGENT_UID},gid={AGENT_UID},mode=0700,exec"}),
        cap_drop=["ALL"], security_opt=["no-new-privileges"],
        mem_limit=limits.memory_mb * MB, memswap_limit=limits.memory_mb * MB,
        pids_limit=limits.processes, nano_cpus=int(CPUS * 1e9),
        ulimits=[Ulimit(name="cpu", soft=limits.cpu_s, hard=limits.cpu_s + 2),
                 Ulimit(name="fsize", soft=limits.file_size_mb * MB, hard=limits.file_size_mb * MB),
                 Ulimit(name="core", soft=0, hard=0)],
        # a list, not a mapping: one host file (the bundle) is shown at several places
        binds=[f"{host}:{inside}:ro" for host, inside in
               ((trust.cert, IMAGE_TRUST.cert), (trust.bundle, IMAGE_TRUST.bundle), *system_stores(trust),
                *image.brings)] + ([f"{workspace}:{HOME}:rw"] if workspace else []))


def system_stores(trust: TrustFiles) -> list[tuple[Path, Path]]:
    """The system store with detour's CA (host -> inside), at every distribution's place for it."""
    if not trust.certs:
        return []
    return [(trust.certs, SYSTEM_CERTS), *((trust.certs / name, inside) for name, inside in OTHER_SYSTEM_STORES)]


class ContainerRun:
    """One started container: its streams, its exit, and which limit (if any) ended it."""

    def __init__(self, client: docker.DockerClient, cid: str, spec: SandboxSpec, via: LimitsVia,
                 stdin: bytes) -> None:
        self.api = client.api
        self.cid = cid
        self.spec = spec
        self.stdin = stdin
        self.via = via
        self.groups = cgroups.group_dirs(f"docker/{cid}", via)  # dockerd's cgroupfs layout
        self.capture = OutputCapture(spec.limits.output_bytes, echo_of(spec.control, spec.stdio))
        self.exited = threading.Event()
        self.status: int | None = None
        self.sock = self.api.attach_socket(cid, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1})

    def start(self, started: bool = False) -> int:
        """`started`: the container runs already, waiting in its entrypoint (a pool's)."""
        if not started:
            self.api.start(self.cid)
        self.capture.follow(self._read)
        threading.Thread(target=self._write, args=(self.stdin,), daemon=True).start()
        threading.Thread(target=self._wait, daemon=True).start()
        return self.api.inspect_container(self.cid)["State"]["Pid"]

    def _write(self, data: bytes) -> None:
        """The payload, then (stdio) this process's own stdin as it comes, until it ends."""
        raw: socket.socket = self.sock._sock  # the attach stream's socket, as docker-py's own docs use it
        try:
            raw.sendall(data)
            while self.spec.stdio and (chunk := os.read(sys.stdin.fileno(), 65536)):
                raw.sendall(chunk)
            raw.shutdown(socket.SHUT_WR)  # the container's stdin ends (stdin_once)
        except OSError:
            pass  # the program exited without reading it all

    def _read(self) -> None:
        for stream, chunk in frames_iter(self.sock, tty=False):
            if stream in STREAMS:
                self.capture.feed(STREAMS[stream], chunk)

    def _wait(self) -> None:
        self.status = self.api.wait(self.cid)["StatusCode"]
        self.exited.set()

    def watch(self, started: float) -> KilledReason | None:
        deadline = started + self.spec.limits.timeout_s
        while not self.exited.wait(POLL_S):
            if stopped(self.spec.control):
                return "interrupted"
            if self.capture.exceeded.is_set():
                return "output"
            if time.monotonic() > deadline:
                return "timeout"
            if breach := cgroups.limit_breach(self.groups, self.via):
                return breach
        return None

    def breach(self) -> KilledReason | None:
        """The limit the engine enforced, read after the exit: OOM kill, pids.max, RLIMIT_CPU."""
        if self.api.inspect_container(self.cid)["State"]["OOMKilled"]:
            return "memory"
        return cgroups.limit_breach(self.groups, self.via) or (
            "cpu" if self.status == 128 + signal.SIGXCPU else None)

    def killed_outside(self, since: float) -> str | None:
        """The signal another program sent the container through the engine (docker kill, stop,
        rm -f), from the engine's events: detour's own stop comes only after `watch` named why."""
        events = self.api.events(since=since, until=time.time(), decode=True,
                                 filters={"container": self.cid, "event": "kill"})
        signals = [event.get("Actor", {}).get("Attributes", {}).get("signal") for event in events]
        sent = next((s for s in signals if s), None)
        return signal.Signals(int(sent)).name if sent and sent.isdigit() else sent  # the engine says "9"

    def stop(self) -> None:
        if not self.exited.is_set():
            try:
                self.api.kill(self.cid)
            except docker.errors.APIError:
                pass  # it exited meanwhile
        self.exited.wait(10)

    def close(self) -> None:
        self.sock._sock.close()
        self.sock.close()


@dataclass
class Waiting:
    """A container waiting in its entrypoint for its run, with the network it will get."""
    network: SandboxNetwork
    cid: str
    started: bool


class DockerSandbox(Sandbox):
    name = "docker"

    def __init__(self, state: StatePaths, client: docker.DockerClient | None = None, image: str | None = None,
                 pool: int | None = None, trust: TrustFiles | None = None) -> None:
        """`pool`: how many containers to keep started ahead (default DETOUR_DOCKER_POOL, else
        none): a run with the default limits and no workspace takes one, never used before.
        `trust`: the CA files they mount (the state's); without it the pool starts at the first run."""
        self.state = state
        self.client = client or connect()
        self.image = foreign_image(self.client, image) if image and image != IMAGE else DETOUR_IMAGE
        self.runtime = self.image.runtime
        self.limits_via: LimitsVia = f"cgroup v{self.client.info().get('CgroupVersion', '1')}"  # type: ignore[assignment]
        self.pool_size = pool if pool is not None else int(os.environ.get(POOL_VARIABLE) or 0)
        self.pool: ContainerPool | None = None
        self.trust = trust
        if trust:
            self._open_pool(trust)

    def _open_pool(self, trust: TrustFiles) -> None:
        if self.pool or self.pool_size <= 0:
            return
        self.trust = trust
        self.pool = ContainerPool(lambda: self._waiting(Limits(), None, trust, start=True), self.pool_size,
                                  self._discard)
        atexit.register(self.close)  # and `detour doctor` finds those of a process killed

    def close(self) -> None:
        """Remove the containers made ahead (and their networks)."""
        if self.pool:
            self.pool.close()

    def run(self, spec: SandboxSpec) -> Execution:
        if spec.proxy is None:
            raise ValueError("the docker backend needs a stack to route through")
        self._open_pool(spec.trust)
        with ExitStack() as cleanup:
            poolable = spec.limits == Limits() and not spec.workspace and spec.trust == self.trust
            pooled = self.pool.take() if self.pool and poolable else None
            if pooled is None and spec.workspace:
                prepare_workspace(spec.model_copy(update={"program": None}), AGENT_UID)  # the program comes by tar
            ready = pooled or self._waiting(spec.limits, spec.workspace, spec.trust, start=False)
            cleanup.callback(teardown, ready.network.sid)
            cleanup.callback(self._remove, ready.cid)  # runs before teardown: the netns goes with it
            ready.network.register(spec.proxy.env_id)  # before the program can send anything
            shipped = host_files(spec.argv, self.state.home)
            started = time.monotonic()
            run = ContainerRun(self.client, ready.cid, spec, self.limits_via,
                               payload(spec, shipped, ready.network.host_ip, self.runtime))
            cleanup.callback(run.close)
            began = time.time()
            ready.network.build(spec.proxy, spec.mode, run.start(started=ready.started))
            killed = run.watch(started)
            run.stop()
            stdout, stderr = run.capture.finish()
            killed = killed or ("output" if run.capture.exceeded.is_set() else None) or run.breach()
            duration_s = time.monotonic() - started
            outside = None if killed else run.killed_outside(began)
            return Execution(exit_code=exit_code(run.status) if run.status is not None else None,
                             stdout=stdout, stderr=stderr, timed_out=killed == "timeout", killed_reason=killed,
                             duration_ms=round(duration_s * 1000, 1), limits_via=self.limits_via,
                             warnings=[f"detour: the sandbox's container was stopped from outside detour (signal "
                                       f"{outside}: docker kill, stop or rm -f) after {duration_s:.1f} s; the "
                                       "program did not finish"] if outside else [])

    def _waiting(self, limits: Limits, workspace: Path | None, trust: TrustFiles, start: bool) -> Waiting:
        """A container that waits in its entrypoint for its run and its network; `start`: started now."""
        network = SandboxNetwork.claim()
        try:
            cid = self.client.api.create_container(
                self.image.tag, entrypoint=ENTRY, user=str(AGENT_UID), working_dir=str(HOME), hostname="sandbox",
                stdin_open=True, use_config_proxy=False, name=f"detour-{network.sid}",
                labels={LABEL: network.sid, OWNER_LABEL: str(os.getpid())},
                host_config=host_config(self.client, limits, workspace, trust, network.host_ip, self.image))["Id"]
            if start:
                self.client.api.start(cid)
        except BaseException:
            teardown(network.sid)
            remove(self.client, f"detour-{network.sid}", missing_ok=True)
            raise
        return Waiting(network, cid, start)

    def _remove(self, cid: str) -> None:
        remove(self.client, cid, missing_ok=True)

    def _discard(self, waiting: Waiting) -> None:
        self._remove(waiting.cid)
        teardown(waiting.network.sid)


def leftovers(client: docker.DockerClient) -> list[str]:
    """Sandbox containers whose owning detour process is gone."""
    stale = []
    for container in client.containers.list(all=True, filters={"label": LABEL}):
        owner = int(container.labels.get(OWNER_LABEL, "0"))
        if not owner or not Path(f"/proc/{owner}").exists():
            stale.append(container.name)
    return stale


def remove(client: docker.DockerClient, name: str, missing_ok: bool = False) -> None:
    try:
        client.api.remove_container(name, force=True)
    except docker.errors.NotFound:
        if not missing_ok:
            raise
