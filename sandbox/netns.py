"""One namespace sandbox's network: a netns on a veth pair, whose only way out is the proxy.

On the host side, nftables rules in the sandbox's own table (`inet detour_<sid>`; no other
table is touched) send its TCP 80/443 to mitmproxy's transparent listener, its DNS to
detour's resolver and the proxy's regular port to the regular listener, all on 127.0.0.1,
and reject everything else, forwarding included. Every resource is named after the
sandbox id and recorded under /run/detour, so `teardown(sid)` can remove it after a crash.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

import psutil

from detour_core.paths import RUNTIME_DIR, SANDBOX_ADDRESSES
from sandbox import cgroups
from sandbox.addressing import SLOTS, host_address, sandbox_address, subnet
from sandbox.base import Mode, ProxyAccess

OWNERS = RUNTIME_DIR / "sandboxes"
SUBNETS = RUNTIME_DIR / "subnets"
NETNS_PREFIX = "detour-"
TABLE_PREFIX = "detour_"
# nft commands of this process at once. Each reads the ruleset, and restarts its read when another
# commits meanwhile: 256 sandboxes set up at once kept ~140 nft processes spinning for minutes.
NFT_TURNS = threading.BoundedSemaphore(os.cpu_count() or 2)


class NetworkError(RuntimeError):
    pass


def _turn(argv: list[str]) -> contextlib.AbstractContextManager:
    """An nft command waits for one of NFT_TURNS; others run at once."""
    return NFT_TURNS if argv[0] == "nft" else contextlib.nullcontext()


def _run(argv: list[str], script: str | None = None) -> None:
    with _turn(argv):
        done = subprocess.run(argv, input=script, capture_output=True, text=True)
    if done.returncode != 0:
        raise NetworkError(f"{' '.join(argv[:3])} failed: {done.stderr.strip()}")


def _quiet(argv: list[str], script: str | None = None) -> str:
    """The command's output; nothing where it fails or is not installed (`nft` off PATH: then it
    made nothing either, and a check or a cleanup goes on with what it can see)."""
    try:
        with _turn(argv):
            return subprocess.run(argv, input=script, capture_output=True, text=True).stdout
    except OSError:
        return ""


def nft_rules(table: str, host_veth: str, host_ip: str, proxy: ProxyAccess, mode: Mode) -> str:
    """Proxy mode: the regular and transparent listeners. Rewrite mode: only the gateway,
    and 80/443 are rejected, so the comparison shows what the preludes really miss."""
    local = proxy.host
    if mode == "proxy":
        ports = [proxy.port, proxy.transparent_port, proxy.dns_port]
        nat = (f'iifname "{host_veth}" ip daddr {host_ip} tcp dport {proxy.port} dnat ip to {local}:{proxy.port}\n'
               f'    iifname "{host_veth}" tcp dport {{ 80, 443 }} dnat ip to {local}:{proxy.transparent_port}')
    else:
        ports = [proxy.gateway_port, proxy.dns_port]
        nat = (f'iifname "{host_veth}" ip daddr {host_ip} tcp dport {proxy.gateway_port} '
               f'dnat ip to {local}:{proxy.gateway_port}')
    return f"""
table inet {table} {{
  chain prerouting {{
    type nat hook prerouting priority dstnat - 10; policy accept;
    {nat}
    iifname "{host_veth}" meta l4proto {{ tcp, udp }} th dport 53 dnat ip to {local}:{proxy.dns_port}
  }}
  chain input {{
    type filter hook input priority filter - 10; policy accept;
    iifname "{host_veth}" ct state established,related accept
    iifname "{host_veth}" ct status dnat ip daddr {local} tcp dport {{ {", ".join(map(str, ports))} }} accept
    iifname "{host_veth}" ct status dnat ip daddr {local} udp dport {proxy.dns_port} accept
    iifname "{host_veth}" meta l4proto tcp counter reject with tcp reset
    iifname "{host_veth}" counter reject with icmpx type admin-prohibited
  }}
  chain forward {{
    type filter hook forward priority filter - 10; policy accept;
    iifname "{host_veth}" meta l4proto tcp counter reject with tcp reset
    iifname "{host_veth}" counter reject with icmpx type admin-prohibited
    oifname "{host_veth}" counter drop
  }}
}}
"""


@dataclass
class SandboxNetwork:
    sid: str
    index: int

    @property
    def netns(self) -> str:
        return NETNS_PREFIX + self.sid

    @property
    def host_veth(self) -> str:
        return f"dt{self.sid}h"

    @property
    def sandbox_veth(self) -> str:
        return f"dt{self.sid}s"

    @property
    def table(self) -> str:
        return TABLE_PREFIX + self.sid

    @property
    def host_ip(self) -> str:
        return host_address(self.index)

    @property
    def sandbox_ip(self) -> str:
        return sandbox_address(self.index)

    @classmethod
    def claim(cls) -> SandboxNetwork:
        """Reserve an address pair, so a backend knows the sandbox's proxy address early."""
        sid = secrets.token_hex(4)
        return cls(sid, _claim_subnet(sid))

    @classmethod
    def create(cls, proxy: ProxyAccess, mode: Mode = "proxy") -> SandboxNetwork:
        network = cls.claim()
        network.build(proxy, mode)
        return network

    def build(self, proxy: ProxyAccess, mode: Mode, pid: int | None = None) -> None:
        """A new netns, or with `pid` the one that process already has (a container's)."""
        try:
            self._build(proxy, mode, pid)
        except BaseException:
            teardown(self.sid)
            raise

    def _build(self, proxy: ProxyAccess, mode: Mode, pid: int | None) -> None:
        # The rules exist before the sandbox side has an address, so no packet precedes them.
        _run(["nft", "-f", "-"], nft_rules(self.table, self.host_veth, self.host_ip, proxy, mode))
        _run(["ip", "-batch", "-"], "\n".join([
            f"netns attach {self.netns} {pid}" if pid else f"netns add {self.netns}",
            f"link add {self.host_veth} type veth peer name {self.sandbox_veth} netns {self.netns}",
            f"addr add {self.host_ip}/30 dev {self.host_veth} noprefixroute",
            f"link set {self.host_veth} up",
            # ACK the sandbox at once: a client that writes headers and body apart (urllib3)
            # would otherwise wait out Nagle against delayed ACK, 40 ms a request.
            f"route add {subnet(self.index)} dev {self.host_veth} src {self.host_ip} quickack 1",
        ]))
        sysctl = Path("/proc/sys/net")
        (sysctl / "ipv4/conf" / self.host_veth / "route_localnet").write_text("1")
        v6 = sysctl / "ipv6/conf" / self.host_veth / "disable_ipv6"
        if v6.exists():
            v6.write_text("1")
        _run(["ip", "-n", self.netns, "-batch", "-"], "\n".join([
            f"addr add {self.sandbox_ip}/30 dev {self.sandbox_veth}",
            f"link set {self.sandbox_veth} up",
            "link set lo up",
            f"route add default via {self.host_ip}",  # last: a container waits for it
        ]))

    def register(self, env_id: str) -> None:
        """Tell the proxy which environment this sandbox's address belongs to."""
        SANDBOX_ADDRESSES.mkdir(parents=True, exist_ok=True)
        (SANDBOX_ADDRESSES / self.sandbox_ip).write_text(env_id)


def _claim_subnet(sid: str) -> int:
    """Reserve a free /30 for `sid`, and record this process as its owner."""
    for folder in (OWNERS, SUBNETS):
        folder.mkdir(parents=True, exist_ok=True)
    for _ in range(100):
        index = secrets.randbelow(SLOTS)
        try:
            # Readable by all: a proxy under its own user (detour/proxy_user.py) finds the sandbox it
            # delivers events to by it; it names the sandbox, as /run/netns's listing does.
            fd = os.open(SUBNETS / str(index), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue
        with os.fdopen(fd, "w") as f:
            f.write(sid)
        (OWNERS / f"{sid}.json").write_text(json.dumps({"pid": os.getpid(), "index": index}))
        return index
    raise NetworkError("no free sandbox subnet")


def teardown(sid: str) -> None:
    """Remove everything sandbox `sid` had; safe to call twice or after a crash."""
    # The kernel removes a named netns's veth pair with it, a moment later (deleting the veth
    # first would wait for that: ~25 ms a sandbox).
    _quiet(["ip", "netns", "del", NETNS_PREFIX + sid])
    veth = SandboxNetwork(sid, 0).host_veth
    if Path("/sys/class/net", veth).exists():  # an attached netns (a container's) outlives its name
        _quiet(["ip", "link", "del", veth])
    _quiet(["nft", "delete", "table", "inet", TABLE_PREFIX + sid])
    cgroups.destroy(sid)
    owner = OWNERS / f"{sid}.json"
    try:
        index = json.loads(owner.read_text())["index"]
    except (OSError, ValueError, KeyError):
        index = None
    if index is not None:
        (SANDBOX_ADDRESSES / sandbox_address(index)).unlink(missing_ok=True)
        (SUBNETS / str(index)).unlink(missing_ok=True)
    owner.unlink(missing_ok=True)


def owner(sid: str) -> int | None:
    """The pid of the process that made sandbox `sid`, while its record lasts."""
    try:
        return json.loads((OWNERS / f"{sid}.json").read_text())["pid"]
    except (OSError, ValueError, KeyError):
        return None


def _owner_alive(sid: str) -> bool:
    pid = owner(sid)
    return pid is not None and psutil.pid_exists(pid)


def known_sandboxes() -> set[str]:
    """Every sandbox id that has a netns, a table, a cgroup or a record on this machine."""
    netns = _quiet(["ip", "netns", "list"]).split("\n")
    tables = _quiet(["nft", "list", "tables"]).split("\n")
    ids = {line.split()[0][len(NETNS_PREFIX):] for line in netns if line.startswith(NETNS_PREFIX)}
    ids |= {line.split()[-1][len(TABLE_PREFIX):] for line in tables
            if line.startswith("table inet " + TABLE_PREFIX)}
    ids |= cgroups.group_ids()
    ids |= {p.stem for p in OWNERS.glob("*.json")} if OWNERS.is_dir() else set()
    return ids


def leftovers() -> list[str]:
    """Sandboxes whose owning process is gone."""
    return sorted(sid for sid in known_sandboxes() if not _owner_alive(sid))
