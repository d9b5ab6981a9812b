"""The proxy under a user of its own (#49 item 7): it parses everything a sandbox sends, so a
flaw in it must not hand over the machine.

Started as root, a stack runs its proxy processes as the home's proxy user (one uid and gid
per home, from 500000, kept in `proxy.uid` and claimed machine-wide in /run/detour/proxy-users),
with no capabilities, no-new-privs and limits of their own:
- files: the home is 0710 root:<proxy gid>, so the proxy may pass through it but list nothing;
  it owns `audit/` (the one folder it writes besides the environments' databases, which the
  faults it fires and the replicas it may answer write, and `events/`, where those replicas note
  an environment that sends events), reads `policies/` and `secrets/`
  through its group, and reads its CA key and the credential signing key from 0640 copies in
  `proxy/`. The API key, the CA's own folder, runs, logs and every other home stay closed.
  The interpreter's folders are shown to it in a mount namespace of its own where a closed
  folder (`/root`, holding pyenv's Python) stands on their way (sandbox/run_uid.py).
- network: an nftables table of its own matches the uid's packets (detour/proxy_egress.py):
  it may open connections to the replica server, its database, the model servers
  its home's policies name, listeners of its own (its model translator), and the addresses of
  the hosts a policy passes through, which its stack's root process resolves and opens when
  the proxy asks (through the broker below); nothing else, on this machine or beyond it.
Started as root where namespaces cannot be made (a container without CAP_SYS_ADMIN, as
compose runs it), as any other user, or with DETOUR_PROXY_USER=off, the proxy runs as the
stack's user, with no-new-privs and the limits.
- limits: RLIMIT_NOFILE and RLIMIT_NPROC, and a memory cgroup for all of a stack's proxies.
- sandboxes' own loopback (event deliveries) is reached through the stack's root process
  (sandbox/inbound.py's broker), since entering a network namespace takes a capability; the
  same broker opens the upstreams a policy passes through.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import resource
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from mitmproxy.certs import DEFAULT_DHPARAM

from detour.proxy_egress import TABLE_PREFIX, Opened, ProxyEgress, nft
from detour_core.paths import RUNTIME_DIR, StatePaths
from detour_core.processes import ended
from mock_services.databases import database_url
from mock_services.events.webhooks import WATCHED
from sandbox.base import Limits
from sandbox.cgroups import ROOT, CgroupLimits, available
from sandbox.inbound import InboundBroker
from sandbox.run_uid import closed_on_the_way, hand_over, reveal_commands

FIRST_UID = 500_000  # above the run uids (300000) and the namespace backend's (200000)
SLOTS = 65_536
REGISTRY = RUNTIME_DIR / "proxy-users"
BROKERS = RUNTIME_DIR / "proxy-brokers"  # each stack's inbound broker socket (0660, its proxy's group)
LIBPQ_SOCKET_FOLDER = Path("/var/run/postgresql")  # where libpq looks when a URL names no host (Debian's)
PROXY_USER_VARIABLE = "DETOUR_PROXY_USER"  # "off": the proxy keeps the stack's user (no-new-privs and the limits)
OPEN_FILES = 65_536  # a connection is a file; each environment may hold 256 (policy.DEFAULT_MAX_CONNECTIONS)
TASKS = 4_096  # processes and threads of the proxy user, all its workers together
MEMORY_MB = 4_096  # all of a stack's proxy processes together; past it the kernel kills one, the stack restarts it
NO_PRIVILEGES = ["--bounding-set=-all", "--inh-caps=-all", "--no-new-privs", "--pdeathsig=TERM"]


@dataclass(frozen=True)
class ProxyFiles:
    """What the proxy reads, where its user may read it."""

    confdir: Path
    signing_key: Path
    upstream_ca: Path | None


@contextlib.contextmanager
def registry_lock():
    REGISTRY.mkdir(parents=True, mode=0o700, exist_ok=True)
    with open(REGISTRY / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _claim(home: Path) -> int:
    """The home's proxy uid: the one `proxy.uid` names if the registry still gives it to this
    home, else the first slot free (or whose home is gone). Under the registry's lock."""
    recorded = home / "proxy.uid"
    with registry_lock():
        with contextlib.suppress(OSError, ValueError):
            uid = int(recorded.read_text())
            if (REGISTRY / str(uid)).read_text() == str(home):
                return uid
        for uid in range(FIRST_UID, FIRST_UID + SLOTS):
            entry = REGISTRY / str(uid)
            with contextlib.suppress(OSError):
                owner = Path(entry.read_text())
                if owner != home and owner.exists():  # its files may still be that gid's
                    continue
            entry.write_text(str(home))
            recorded.write_text(str(uid))
            return uid
    raise RuntimeError(f"detour: all {SLOTS} proxy uids are taken")


def _group_readable(folder: Path, gid: int, writable: bool = False) -> None:
    """`folder` and what it holds: root's, the proxy's group may read (or write) them, and new
    files there are the group's (setgid folders). What goes while it looks needs nothing: an
    environment deleted, SQLite's -wal and -shm files removed as another process closes its last
    connection (a stack started while another ran stopped on one)."""
    folder.mkdir(parents=True, exist_ok=True)
    dir_mode, file_bits = (0o2770, 0o660) if writable else (0o2750, 0o640)
    for parent, dirs, files in os.walk(folder):
        with contextlib.suppress(FileNotFoundError):
            os.chown(parent, 0, gid)
            os.chmod(parent, dir_mode)
        for name in files:
            path = Path(parent, name)
            with contextlib.suppress(FileNotFoundError):
                if not path.is_symlink():
                    os.chown(path, 0, gid)
                    os.chmod(path, (path.stat().st_mode & 0o7) | file_bits)


def _copy(source: Path, target: Path, gid: int) -> Path:
    shutil.copyfile(source, target)
    os.chown(target, 0, gid)
    os.chmod(target, 0o640)
    return target


@functools.cache
def can_confine() -> bool:
    """Root may make a mount namespace and change user here (not in a container without
    CAP_SYS_ADMIN, as compose runs the proxy: there it runs as root with no-new-privs)."""
    if not (shutil.which("setpriv") and shutil.which("unshare") and shutil.which("prlimit")):
        return False
    try:
        done = subprocess.run(["unshare", "--mount", "--propagation", "private", "--", "setpriv",
                               f"--reuid={FIRST_UID}", f"--regid={FIRST_UID}", "--clear-groups", *NO_PRIVILEGES, "--", "true"],
                              capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _dead(pid: str) -> bool:
    """The stack a name's pid part names has ended (a part that is no pid names none)."""
    return not pid.isdigit() or ended(int(pid))


def dead_sockets(uid: int | str = "*") -> list[Path]:
    """The broker sockets of the uid's stacks that were killed (each is named by its stack's process)."""
    return [made for made in BROKERS.glob(f"{uid}-*.sock") if _dead(made.name.split("-")[1])]


def dead_groups(uid: int | str = "*") -> list[Path]:
    """The cgroups of the uid's stacks that were killed (each is named by its stack's process)."""
    return [folder for base in (ROOT, ROOT / "memory", ROOT / "pids", ROOT / "cpuacct")
            for folder in base.glob(f"detour.proxy-{uid}-*") if _dead(folder.name.rsplit("-", 1)[1])]


def _alone(uid: int, own: Path | None) -> bool:
    """No other stack of the uid runs (each has a broker socket, `own` is this one's); the
    sockets of stacks that were killed go."""
    for made in dead_sockets(uid):
        made.unlink(missing_ok=True)
    return all(made == own for made in BROKERS.glob(f"{uid}-*.sock"))


def dead_tables() -> list[str]:
    """The proxy users' tables no running stack holds. Read under the registry's lock: a stack
    makes its socket before it takes the lock to make its table."""
    live = {made.name.split("-")[0] for made in set(BROKERS.glob("*.sock")) - set(dead_sockets())}
    listed = nft("list", "tables", "inet").stdout.split() if shutil.which("nft") else []
    return [name for name in listed if name.startswith(TABLE_PREFIX) and name[len(TABLE_PREFIX):] not in live]


def delete_table(name: str) -> None:
    nft("delete", "table", "inet", name)


def _sweep_groups(uid: int) -> None:
    """The cgroups a killed stack of this home left behind (its proxies died with it)."""
    for folder in dead_groups(uid):
        with contextlib.suppress(OSError):
            folder.rmdir()  # only an empty one goes


def _interpreter_folders() -> list[Path]:
    """The folders this interpreter (which the proxy runs too) and detour's source are read from.
    Not the first entry of sys.path: that is the folder of the command this process was started
    with, or (`python -m`, as a background stack is) the folder it was started in, the user's:
    the proxy is not shown it."""
    source = Path(__file__).resolve().parents[1]
    # Its packages, not the folder holding them: a checkout in a folder closed to others (as
    # `mktemp -d` makes) stays closed when revealed itself; its packages are revealed through it.
    packages = {p for p in source.iterdir() if p.is_dir() and next(p.glob("*.py"), None)}
    searched = sys.path if sys.flags.safe_path else sys.path[1:]
    found = {Path(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, *searched) if p and Path(p).exists()}
    return sorted(found | packages)


class ProxyUser:
    """One stack's proxy user: prepared at its first proxy start, undone by `close`."""

    def __init__(self, state: StatePaths) -> None:
        self.state = state
        self.uid: int | None = None
        self.cgroup: CgroupLimits | None = None
        self.broker: InboundBroker | None = None
        self.egress: ProxyEgress | None = None

    @property
    def confined(self) -> bool:
        """Started as root where mount namespaces can be made, unless DETOUR_PROXY_USER=off or
        the environments' Postgres is reached over a Unix socket in a folder another uid may not
        pass (the database server's own): the proxy's replicas could not read."""
        return os.environ.get(PROXY_USER_VARIABLE) != "off" and os.geteuid() == 0 and can_confine() \
            and not socket_closed_to_others(database_url(self.state))

    def files(self, confdir: Path, upstream_ca: Path | None, opened: Opened,
              upstream_hosts: dict[str, str]) -> ProxyFiles:
        """Ready the home for the proxy user (once per stack), and say where the proxy reads.
        `opened`: where it may always connect; `upstream_hosts`: the stack's own addresses for
        names (instead of DNS) when a policy passes them through."""
        if not self.confined:
            return ProxyFiles(confdir, self.state.signing_key, upstream_ca)
        if self.uid is None:
            self._prepare(opened, upstream_hosts)
        own = self.state.home / "proxy"
        copies = own / "confdir"
        copies.mkdir(parents=True, exist_ok=True)
        for made in confdir.iterdir():
            if made.is_file():
                _copy(made, copies / made.name, self.uid)
        dhparam = copies / "mitmproxy-dhparam.pem"  # mitmproxy writes it at start where it is missing
        if not dhparam.exists():
            dhparam.write_bytes(DEFAULT_DHPARAM)
        os.chown(copies, 0, self.uid)
        os.chmod(copies, 0o750)
        ca = _copy(upstream_ca, own / "upstream-ca.pem", self.uid) if upstream_ca else None
        return ProxyFiles(copies, _copy(self.state.signing_key, own / "signing.key", self.uid), ca)

    def _prepare(self, opened: Opened, upstream_hosts: dict[str, str]) -> None:
        home = self.state.home
        uid = self.uid = _claim(home)
        os.chown(home, 0, uid)
        os.chmod(home, 0o710)
        own = home / "proxy"
        own.mkdir(exist_ok=True)
        os.chown(own, 0, uid)
        os.chmod(own, 0o750)
        self.state.audit_dir.mkdir(exist_ok=True)
        hand_over(self.state.audit_dir, uid)
        _group_readable(self.state.policies_dir, uid)
        _group_readable(self.state.secrets_dir, uid)
        _group_readable(self.state.environments_dir, uid, writable=True)
        _group_readable(self.state.home / WATCHED, uid, writable=True)  # replicas it runs note event listeners there
        if self.state.database_file.exists():
            os.chown(self.state.database_file, 0, uid)
            os.chmod(self.state.database_file, 0o640)
        _sweep_groups(uid)
        via = available()
        if via:
            # One a stack, even beside another of the home in this process (the pid, last, says whose it is):
            # removing a group kills what is in it.
            self.cgroup = CgroupLimits(f"detour.proxy-{uid}-{id(self) % 10**6}-{os.getpid()}",
                                       Limits(memory_mb=MEMORY_MB, processes=TASKS), via)
        BROKERS.mkdir(parents=True, exist_ok=True)
        os.chmod(BROKERS, 0o711)  # a socket's path is short (108 bytes), a home's may not be
        self.broker = InboundBroker(BROKERS / f"{uid}-{os.getpid()}-{id(self) % 10**6}.sock", uid)
        if shutil.which("nft"):
            with registry_lock():
                self.egress = ProxyEgress(uid, opened, self.state.policies_dir, _alone(uid, self.broker.path),
                                          upstream_hosts, own / "hosts")
            self.broker.upstreams = self.egress.open

    def wrap(self, argv: list[str]) -> list[str]:
        """The proxy's command line: its limits, and as its user (not root: no-new-privs only)."""
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        files = OPEN_FILES if hard == resource.RLIM_INFINITY else min(OPEN_FILES, hard)
        limits = ["prlimit", f"--nofile={files}"] + ([f"--nproc={TASKS}"] if self.confined else []) + ["--"]
        if not self.confined or self.uid is None:
            keep = ["setpriv", "--no-new-privs", "--"] if shutil.which("setpriv") else []
            return [*(limits if shutil.which("prlimit") else []), *keep, *argv]
        # The stash stands outside every folder the reveal may cover (the home's may be one).
        steps = reveal_commands([*_interpreter_folders(), self.state.home], REGISTRY / f"reveal-{self.uid}")
        if self.egress:  # the names it reaches, resolved by the stack: it may send no DNS query
            steps.append(f"mount --bind {shlex.quote(str(self.egress.hosts_file))} /etc/hosts")
        if self.cgroup:
            steps += [f"echo $$ > {folder}/cgroup.procs" for folder in sorted(set(self.cgroup.dirs.values()))]
        script = " && ".join([*steps, "cd /", 'exec "$@"'])  # not in the folder the stack was started in
        become = ["setpriv", f"--reuid={self.uid}", f"--regid={self.uid}", "--clear-groups", *NO_PRIVILEGES, "--"]
        broker = ["env", f"{InboundBroker.VARIABLE}={self.broker.path}"] if self.broker else []
        return [*limits, "unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", script, "sh",
                *become, *broker, *argv]

    def close(self) -> None:
        """The cgroup and the broker go with the stack, and the nft table with the uid's last
        stack: whether another runs and the socket that says this one does are settled under
        the registry's lock, so two stacks closing at once do not both leave it. The cgroup
        last: a proxy that will not leave it (it gives up after 5 s) keeps only the cgroup."""
        if self.uid is not None:
            with registry_lock():
                if self.egress:
                    self.egress.close(_alone(self.uid, self.broker.path if self.broker else None))
                if self.broker:
                    self.broker.close()
        self.egress = self.broker = None
        self.uid = None
        if self.cgroup:
            cgroup, self.cgroup = self.cgroup, None
            cgroup.remove()


def socket_closed_to_others(url: str | None) -> bool:
    """A Postgres URL naming a Unix socket (`?host=/folder`, or none: libpq's default folder)
    whose folder, or one on its way, other uids may not pass: the proxy's could not connect."""
    if not url:
        return False
    place = urlsplit(url)
    hosts = parse_qs(place.query).get("host", [])
    if place.hostname or (hosts and not hosts[0].startswith("/")):
        return False
    folder = Path(hosts[0]) if hosts else LIBPQ_SOCKET_FOLDER
    try:
        return closed_on_the_way(folder / ".s.PGSQL") is not None
    except OSError:  # a folder that is not there: nobody connects, the stack says so itself
        return False
