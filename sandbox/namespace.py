"""The `namespace` backend: the sandbox's only way out is detour's proxy.

Network: its own netns behind nftables (sandbox/netns.py); code that ignores the proxy
variables is captured transparently or fails closed. Everything else: bubblewrap gives it
fresh mount, PID, IPC and UTS namespaces over a read-only root, with private tmpfs for
/tmp and the work directory, and /root, /home, /run and detour's state masked; the program
runs under a uid of its own with no capabilities (setpriv). Memory and process limits come
from cgroups where the machine has them, rlimits and the watchdog otherwise.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from detour_core.paths import StatePaths
from detour_core.registry import replicated_hosts
from sandbox import cgroups, host_packages
from sandbox.base import SYSTEM_CERTS, Execution, Mode, ProxyAccess, Sandbox, SandboxSpec, TrustFiles
from sandbox.variables import clock_command, sandbox_environment
from sandbox.netns import SandboxNetwork, teardown
from sandbox.netns_pool import NetworkPools
from sandbox.process import apply_rlimits, rlimit_values
from sandbox.runtimes import Runtime, host_runtime
from sandbox.supervisor import supervise
from sandbox.warm import WarmRun, eligible, server_for
from sandbox.workspace import prepare_workspace

HOME = Path("/home/agent")
TRUST_DIR = Path("/run/detour-ca")
INSIDE_TRUST = TrustFiles(cert=TRUST_DIR / "ca.pem", bundle=TRUST_DIR / "bundle.pem", wgetrc=TRUST_DIR / "wgetrc")
# CA bundles that vendor clients ship and pass to their HTTP library themselves, ignoring the
# variables and the system store (stripe-python's `verify=stripe.ca_bundle_path`): the
# sandbox's bundle is bound over them where the runtime has them, so such clients run unmodified
# (the docker backend's image links them to its bundle: sandbox/images/Dockerfile).
# CA bundles clients pass to their HTTP library themselves: stripe-python's, and certifi's, which
# the generated clients (asana's urllib3 pool) give as ca_certs without reading SSL_CERT_FILE.
PINNED_BUNDLES = ("stripe/data/ca-certificates.crt", "certifi/cacert.pem")
MASKED = (Path("/root"), Path("/home"), Path("/tmp"), Path("/var/tmp"), Path("/run"))
FIRST_UID = 200_000
MB = 1024 * 1024


def _folder_prefix(sid: str) -> str:
    return f"detour-{sid}-"


def run_folders(sid: str) -> list[Path]:
    """The folders (support files, staged copies) a run in sandbox `sid` keeps in the host's
    temporary folder: removed when it ends, left behind when its detour is killed."""
    return sorted(Path(tempfile.gettempdir()).glob(_folder_prefix(sid) + "*"))


def requirements_missing() -> list[str]:
    """What this machine lacks to run the backend (empty when it can)."""
    missing = [need.probe for need in host_packages.missing(host_packages.NAMESPACE)]
    if os.geteuid() != 0:
        missing.append("root")
    return missing


def _under(path: Path, folders: tuple[Path, ...]) -> bool:
    return any(path == f or f in path.parents for f in folders)


def _root_binds() -> list[str]:
    """The host's top-level folders, read-only, one by one. Binding / itself would also take
    in /run/netns, whose entries come and go with other sandboxes; bwrap fails if one
    vanishes while it remounts them read-only."""
    argv: list[str] = []
    for entry in sorted(os.scandir("/"), key=lambda e: e.name):
        path = Path("/", entry.name)
        if entry.name in ("proc", "dev") or path in MASKED:
            continue
        if entry.is_symlink():
            argv += ["--symlink", os.readlink(path), str(path)]
        elif entry.is_dir(follow_symlinks=False):
            argv += ["--ro-bind", str(path), str(path)]
    return argv


@dataclass
class _Shown:
    """bwrap options that show host paths read-only to the sandbox's uid (an "other" to every
    host file), each at the place it is given (`show`), and what the sandbox then sees."""

    argv: list[str] = field(default_factory=list)
    masks: list[Path] = field(default_factory=lambda: list(MASKED))
    shown: list[Path] = field(default_factory=list)
    made: set[Path] = field(default_factory=set)

    def show(self, source: Path, inside: Path) -> None:
        """On the way to `inside`, the folders under a masked one are made 0755 in its tmpfs (bwrap
        would make them 0700), and the outermost folder others may not pass (a checkout in
        `mktemp -d`, a 0750 home outside /home) gets a 0755 tmpfs of its own with the folders on
        the way made in it: the uid passes it, and nothing else it holds shows. A path inside
        one shown before is walked from there (the host's folders, seen through the bind): the
        outer one must come first."""
        start = self._deepest(inside, self.shown) or Path("/")
        covered, needed = False, inside in self.masks
        for folder in reversed(inside.parents):
            if not folder.is_relative_to(start) or folder == start:
                continue
            if folder in self.masks:
                covered = needed = True
            elif covered:
                if folder not in self.made:
                    self.argv += ["--perms", "0755", "--dir", str(folder)]
                    self.made.add(folder)
            elif _closed(folder):
                self.argv += ["--perms", "0755", "--tmpfs", str(folder)]
                self.masks.append(folder)
                covered = needed = True
        if needed or source != inside:  # else the sandbox sees and passes it as the host has it
            self.argv += ["--ro-bind", str(source), str(inside)]
        self.shown.append(inside)

    def seen(self, path: Path) -> bool:
        """Whether the sandbox sees `path` as the host has it: the innermost mask or shown path
        around it is a shown one (bound over a mask, as /tmp for a file named in it), or there is none."""
        around = self._deepest(path, [*self.shown, *self.masks])  # the first of equals
        return around is None or around in self.shown

    @staticmethod
    def _deepest(path: Path, folders: list[Path]) -> Path | None:
        return max((f for f in folders if path.is_relative_to(f)), key=lambda f: len(f.parts), default=None)


def _shown(binds: dict[Path, Path]) -> _Shown:
    """inside path -> host path, each shown read-only (outer paths first)."""
    shown = _Shown()
    for inside in sorted(binds):
        shown.show(binds[inside], inside)
    return shown


def _closed(folder: Path) -> bool:
    return not folder.stat().st_mode & stat.S_IXOTH


def _sandbox_can_open(file: Path) -> bool:
    """As the sandbox's uid (an "other" to every host file) sees it once its folder is shown
    (`_Shown`): the folders on the way are made passable, but the file's own is bound as it is.
    A file right in a masked folder (/tmp/agent.py) is not: showing it would show /tmp whole."""
    return bool(file.stat().st_mode & stat.S_IROTH) and not _closed(file.parent) and file.parent not in MASKED


def stage_copies(spec: SandboxSpec, folder: Path) -> dict[Path, Path]:
    """inside path -> a copy the sandbox's uid may read: the program (in the work directory),
    and each named file it could not open where it is (one in a 0700 folder)."""
    wanted = {HOME / spec.program.name: spec.program} if spec.program and not spec.workspace else {}
    wanted |= {file: file for file in spec.files if not _sandbox_can_open(file)}
    copies = {}
    for index, (inside, source) in enumerate(wanted.items()):
        copy = folder / "files" / str(index) / source.name
        copy.parent.mkdir(parents=True)
        shutil.copyfile(source, copy)
        copy.chmod(0o755 if source.stat().st_mode & stat.S_IXUSR else 0o644)
        copies[inside] = copy
    return copies


def _support_files(folder: Path, host_ip: str) -> dict[str, Path]:
    """resolv.conf, hosts and wgetrc as the sandbox sees them."""
    files = {
        "/etc/resolv.conf": f"nameserver {host_ip}\noptions timeout:2 attempts:2\n",
        "/etc/hosts": f"127.0.0.1 localhost\n{host_ip} {' '.join(replicated_hosts())}\n",
        str(INSIDE_TRUST.wgetrc): f"ca_certificate = {INSIDE_TRUST.bundle}\n",
    }
    paths = {}
    for inside, text in files.items():
        path = folder / Path(inside).name
        path.write_text(text)
        path.chmod(0o644)
        paths[inside] = path
    return paths


def _pinned_bundles(folders: tuple[Path, ...]) -> list[str]:
    """The PINNED_BUNDLES that the runtime's folders (an interpreter's prefix or its packages) hold."""
    places = ("", "lib/python3*/site-packages/", "lib/python3/dist-packages/")
    return sorted({str(found) for folder in folders for place in places for relative in PINNED_BUNDLES
                   for found in folder.glob(place + relative) if found.is_file()})


def bwrap_argv(spec: SandboxSpec, runtime: Runtime, network: SandboxNetwork, support: dict[str, Path],
               copies: dict[Path, Path], state_home: Path, warm: WarmRun | None = None) -> list[str]:
    """`warm`: the sandbox runs the warm interpreter's holder in place of the program."""
    disk = str(spec.limits.disk_mb * MB)
    uid = str(sandbox_uid(network))
    argv = ["nsenter", f"--net=/run/netns/{network.netns}", "bwrap", *(warm.bwrap_options() if warm else []),
            "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--hostname", "sandbox",
            *_root_binds(), "--dev", "/dev", "--proc", "/proc"]
    for folder in MASKED:
        argv += ["--perms", "1777", "--size", disk, "--tmpfs", str(folder)] if folder == Path("/tmp") \
            else ["--tmpfs", str(folder)]
    # The runtime's folders, and those of files the command names (the runner refuses detour's
    # state), are shown where they are; copies of files it could not open, in their place.
    folders = [p.resolve() for p in [*runtime.shows, *(file.parent for file in spec.files if file not in copies)]]
    shown = _shown({folder: folder for folder in folders if folder.exists()}
                   | {inside: copy for inside, copy in copies.items() if not _under(inside, (HOME,))})
    argv += shown.argv
    if shown.seen(state_home):
        argv += ["--tmpfs", str(state_home)]
    argv += ["--bind", str(spec.workspace), str(HOME)] if spec.workspace else \
        ["--perms", "0777", "--size", disk, "--tmpfs", str(HOME)]
    if runtime.node_modules:
        argv += ["--ro-bind", str(runtime.node_modules), str(HOME.parent / "node_modules")]
    for inside, copy in copies.items():
        if _under(inside, (HOME,)):
            argv += ["--ro-bind", str(copy), str(inside)]
    argv += ["--perms", "0755", "--dir", str(TRUST_DIR),
             "--ro-bind", str(spec.trust.cert), str(INSIDE_TRUST.cert),
             "--ro-bind", str(spec.trust.bundle), str(INSIDE_TRUST.bundle)]
    argv += [arg for pinned in _pinned_bundles(runtime.shows) for arg in ("--ro-bind", str(spec.trust.bundle), pinned)]
    if spec.trust.certs:  # the system store, with detour's CA: what git, Java, Go, Ruby and PHP read
        argv += ["--ro-bind", str(spec.trust.certs), str(SYSTEM_CERTS)]
    for inside, path in support.items():
        argv += ["--ro-bind", str(path), inside]
    argv += ["--chdir", str(HOME), "--",
             "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--no-new-privs",
             "--inh-caps=-all", "--bounding-set=-all", "--",
             *(warm.command(spec.argv) if warm else [*clock_command(spec), *spec.argv])]
    return argv


def _per_uid(spec: SandboxSpec) -> dict[str, tuple[int, int]]:
    """RLIMIT_NPROC: counted per uid, and each sandbox has its own."""
    return {"RLIMIT_NPROC": (spec.limits.processes,) * 2}


def sandbox_uid(network: SandboxNetwork) -> int:
    """Each sandbox's own, so that two at once cannot touch each other's processes or files."""
    return FIRST_UID + network.index


class NamespaceSandbox(Sandbox):
    name = "namespace"

    def __init__(self, state: StatePaths, runtime: Runtime | None = None, pool: int | None = None) -> None:
        """`pool`: networks kept made ahead per stack and mode (default DETOUR_NAMESPACE_POOL, else none)."""
        self.state = state
        self.runtime = runtime or host_runtime()
        self.pools = NetworkPools(pool)
        self.held: tuple[ProxyAccess, Mode, SandboxNetwork] | None = None

    @contextlib.contextmanager
    def hold(self, proxy: ProxyAccess, mode: Mode = "proxy") -> Iterator[None]:
        """One network (netns, veth, nftables table) for all the runs meanwhile: building and
        removing one costs ~35 ms a run. Runs follow one another, and each has fresh cgroups."""
        network = SandboxNetwork.create(proxy, mode)
        try:
            network.register(proxy.env_id)
            self.held = (proxy, mode, network)
            yield
        finally:
            self.held = None
            teardown(network.sid)

    def _network(self, spec: SandboxSpec, cleanup: ExitStack) -> SandboxNetwork:
        assert spec.proxy is not None
        if self.held and self.held[:2] == (spec.proxy, spec.mode):
            return self.held[2]
        network = self.pools.take(spec.proxy, spec.mode) or SandboxNetwork.create(spec.proxy, spec.mode)
        cleanup.callback(self.pools.release, network)
        network.register(spec.proxy.env_id)
        return network

    def close(self) -> None:
        """Remove the networks made ahead."""
        self.pools.close()

    def run(self, spec: SandboxSpec) -> Execution:
        if spec.proxy is None:
            raise ValueError("the namespace backend needs a stack to route through")
        with ExitStack() as cleanup:
            network = self._network(spec, cleanup)
            limits = cgroups.CgroupLimits.create(network.sid, spec.limits)
            if limits:
                cleanup.callback(limits.remove)
            folder = Path(tempfile.mkdtemp(prefix=_folder_prefix(network.sid)))
            cleanup.callback(shutil.rmtree, folder, True)
            support = _support_files(folder, network.host_ip)
            if spec.workspace:
                prepare_workspace(spec, sandbox_uid(network))
            copies = stage_copies(spec, folder)
            env = sandbox_environment(spec, INSIDE_TRUST, self.runtime, proxy_host=network.host_ip) | {
                "HOME": str(HOME), "TMPDIR": "/tmp"}

            warm = self._warm_run(spec, network, limits, env)
            if warm:
                cleanup.callback(warm.close)

            def preexec() -> None:
                if limits:
                    limits.attach()
                apply_rlimits(spec.limits, _per_uid(spec))

            argv = bwrap_argv(spec, self.runtime, network, support, copies, self.state.home, warm)
            argv = warm.renumbered(argv) if warm else argv
            return supervise(argv, env=env, cwd=folder,
                             limits=spec.limits, stdin=spec.stdin, live=spec.stdio, control=spec.control,
                             limits_via=limits.via if limits else "rlimit+watchdog", preexec=preexec,
                             extra_breach=limits.breach if limits else lambda: None,
                             spent=limits.cpu_counter() if limits else None,
                             pass_fds=warm.pass_fds() if warm else (),
                             on_start=(lambda: warm.started(spec.limits.timeout_s)) if warm else None)

    def _warm_run(self, spec: SandboxSpec, network: SandboxNetwork, limits: cgroups.CgroupLimits | None,
                  env: dict[str, str]) -> WarmRun | None:
        """The hand-over to the warm interpreter, for a run that may have it (sandbox/warm.py)."""
        if not eligible(spec, self.runtime, counted=limits is not None):
            return None
        server = server_for(self.runtime)
        if not server.available():
            return None
        assert limits is not None
        rlimits = rlimit_values(spec.limits) | _per_uid(spec)
        return WarmRun(server, {
            "argv": spec.argv, "env": env, "cwd": str(HOME), "uid": sandbox_uid(network), "rlimits": rlimits,
            "cgroups": sorted({str(folder / "cgroup.procs") for folder in limits.dirs.values()})})
