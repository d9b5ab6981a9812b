"""Where a proxy under its own user may open connections (#49 item 4): an nftables table of its
own matches its uid's packets, and lets through only the address and port pairs its `opened`
sets hold, filled from the root side:
- fixed at start: the replica server, the environments' database (`proxy_destinations`);
- the model servers its home's policies route to (read again whenever the policies change);
  these names the stack's root process resolves too, and the proxy finds them in an /etc/hosts
  of its own (its mount namespace shows `proxy/hosts` there): it sends no DNS query at all;
- the hosts a policy passes through, one address at a time: before the proxy opens a
  connection to such a host, it asks its stack's root process (over the broker socket it
  already uses for deliveries, sandbox/inbound.py), which checks the name against the home's
  policies (an exact name or a `*.domain` entry alike), resolves it itself and opens its
  addresses on that port. The proxy then connects to an address root resolved, by the name's
  SNI. A name no policy names opens nothing, and an address no name led to stays closed.
An address kept for a name goes once no policy names it, or when nobody asked for it in
RESOLVED_IDLE_S (its DNS may change). A DNS answer pointing at this machine, its sandboxes or
link-local addresses (cloud metadata) opens nothing; a stack's own `upstream_hosts` mapping
(a test's lab, a closed network's gateway) is taken as given.
Established connections (its answers to sandboxes) pass; it may also reach listeners of its
own (its model translator); everything else, the machine's resolvers too, is refused.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import subprocess
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import psutil

from detour_core.hosts import host_matches, is_address, normal_host
from detour_core.policy import InvalidPolicy, Policy, load_policy
from sandbox.addressing import SANDBOX_NET

TABLE_PREFIX = "detourproxy_"  # not "detour_": those are sandboxes' tables (doctor finds leftovers by it)
POLICY_LOOK_S = 0.1  # how often the policies folder's time is looked at
FRESH_S = 1.0  # a policies folder changed this recently is read again at the next look
RESOLVED_IDLE_S = 600.0  # an address resolved for a name and not asked for since goes
Opened = dict[str, list[int]]  # address (or, before it is resolved, name) -> ports
SYSTEM_HOSTS = Path("/etc/hosts")
HOSTS_MARK = "# detour: the names its proxy reaches, as the stack resolved them"


def nft_table(uid: int) -> str:
    """The proxy user's own egress, one table per uid (every stack of the home shares it): the
    sets hold the address and port pairs the stacks opened (`nft_elements`). A connection it
    opens to another loopback port is marked, and the answer of a listener that is not its own
    (its translator's, say) is dropped, so the handshake never completes: nothing reaches it."""
    lines = [
        f"ct direction reply ct mark {uid} meta skuid != {uid} drop",  # the mark: the uid's own
        f"meta skuid != {uid} accept",
        "ct state established,related accept",
        "ip daddr . tcp dport @opened4 accept",
        "ip6 daddr . tcp dport @opened6 accept",
        f"ip daddr 127.0.0.0/8 meta l4proto tcp ct state new ct mark set {uid} accept",
        f"ip6 daddr ::1 meta l4proto tcp ct state new ct mark set {uid} accept",
        "reject",
    ]
    body = "\n    ".join(lines)
    return (f"table inet {TABLE_PREFIX}{uid} {{\n"
            "  set opened4 { type ipv4_addr . inet_service; }\n"
            "  set opened6 { type ipv6_addr . inet_service; }\n"
            "  chain output {\n    type filter hook output priority filter; policy accept;\n"
            f"    {body}\n  }}\n}}\n")


def nft_elements(opened: Opened) -> set[tuple[str, str]]:
    """The sets' elements for `opened` (address -> ports): (set name, element)."""
    return {("opened6" if ":" in address else "opened4", f"{address} . {port}")
            for address, ports in opened.items() for port in ports}


def nft(*words: str, script: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["nft", *words], input=script, text=True, capture_output=True)


def _addresses(host: str, port: int) -> list[str]:
    """The name's addresses in the resolver's order (the first is the one to try)."""
    try:
        found = socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP)
    except OSError:
        return []
    return list(dict.fromkeys(str(entry[4][0]) for entry in found))


def off_machine(address: str) -> bool:
    """Beyond this machine, its sandboxes and the link: where a DNS answer may open a way to."""
    found = ipaddress.ip_address(address)
    if isinstance(found, ipaddress.IPv6Address) and found.ipv4_mapped:
        return False
    if found.is_loopback or found.is_link_local or found.is_multicast or found.is_unspecified or found.is_reserved \
            or found in SANDBOX_NET:
        return False
    own = {entry.address.split("%")[0] for entries in psutil.net_if_addrs().values() for entry in entries}
    return address not in own


def passes_through(policy: Policy, host: str, port: int) -> bool:
    """The proxy itself connects to `host` for this policy: an allowed host, or a model route
    to the vendor's own host (a route to a base URL goes there instead)."""
    if not policy.allows(host, port):
        return False
    route = policy.model_route(normal_host(host))
    return route is None or route.vendor or any(host_matches(normal_host(host), p) for p in policy.allow)


def _model_servers(policies: list[Policy]) -> Opened:
    """The hosts and ports the policies' model routes send to (their base URLs)."""
    wanted: Opened = {}
    for route in (r for policy in policies for r in policy.models if r.base_url):
        place = urlsplit(route.base_url)
        wanted.setdefault(place.hostname or "", []).append(place.port or (443 if place.scheme == "https" else 80))
    return wanted


def _resolved(wanted: Opened) -> tuple[Opened, dict[str, list[str]]]:
    """`wanted` (name or address -> ports) resolved: address -> ports, and name -> addresses."""
    opened: Opened = {}
    names: dict[str, list[str]] = {}
    for name, ports in wanted.items():
        found = _addresses(name, ports[0])
        if not is_address(name) and found:
            names[name] = found
        for address in found:
            opened.setdefault(address, []).extend(ports)
    return opened, names


def hosts_text(names: dict[str, list[str]]) -> str:
    """The proxy's /etc/hosts: the machine's, and the names it reaches as the stack resolved them."""
    try:
        system = SYSTEM_HOSTS.read_text()
    except OSError:
        system = "127.0.0.1 localhost\n::1 localhost\n"
    own = [f"{address} {name}" for name, addresses in sorted(names.items()) for address in addresses]
    return "\n".join([system.rstrip("\n"), HOSTS_MARK, *own]) + "\n"


def _read_policies(folder: Path) -> list[Policy]:
    found = []
    for file in sorted(folder.glob("*.json")):
        with contextlib.suppress(InvalidPolicy):
            found.append(load_policy(file))
    return found


class ProxyEgress:
    """The stack's share of its proxy user's table: its fixed destinations, the model servers
    its home's policies name, and the addresses of the names they pass through that the proxy
    asked for (`open`). A stack that closes leaves its elements, and the uid's last stack to
    close removes the table with all of them: an element two stacks share (the database, a
    model server) is one element, which a stack taking its own back would take from the other."""

    def __init__(self, uid: int, wanted: Opened, policies: Path, alone: bool, upstream_hosts: dict[str, str],
                 hosts_file: Path) -> None:
        """Under the proxy users' registry lock: `alone`, no other stack of the uid runs.
        `wanted`: where the proxy may always connect (`proxy_destinations`); `hosts_file`: the
        /etc/hosts its mount namespace shows, kept here (rewritten in place: it is mounted)."""
        self.table = f"{TABLE_PREFIX}{uid}"
        opened, self.fixed_names = _resolved(wanted)
        self.fixed, self.folder, self.hosts_file = nft_elements(opened), policies, hosts_file
        self.hosts = {normal_host(name): address.strip("[]") for name, address in upstream_hosts.items()}
        self.policies: list[Policy] = []
        self.models: set[tuple[str, str]] = set()
        self.resolved: dict[tuple[str, int], dict[str, float]] = {}  # (address, port) -> {name: last asked}
        self.elements: set[tuple[str, str]] = set()
        self.seen: float | None = None
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        if alone:  # what a killed stack of the uid (or a home gone before) left opened goes
            nft("delete", "table", "inet", self.table)
        if nft("list", "table", "inet", self.table).returncode != 0:
            made = nft("-f", "-", script=nft_table(uid))
            if made.returncode != 0:
                raise RuntimeError(f"detour: the proxy user's nftables table: {made.stderr.strip()}")
        self.refresh()
        self.watcher = threading.Thread(target=self._watch, name="proxy-egress", daemon=True)
        self.watcher.start()

    def refresh(self) -> None:
        """The policies read again if their folder changed, and the table to what they open."""
        try:
            changed = self.folder.stat().st_mtime
        except OSError:
            changed = None
        with self.lock:
            if self.seen is not None and changed == self.seen:
                return
            # A time within the last FRESH_S is not trusted: a file written in the same clock tick
            # as the last read would not change it again (the folder's time is coarse).
            self.seen = changed if changed is not None and time.time() - changed > FRESH_S else None
            self.policies = _read_policies(self.folder)
            opened, names = _resolved(_model_servers(self.policies))
            self.models = nft_elements(opened)
            text = hosts_text(self.fixed_names | names)
            if not self.hosts_file.exists() or self.hosts_file.read_text() != text:
                self.hosts_file.write_text(text)  # in place: a rename would leave the mounted file as it was
                self.hosts_file.chmod(0o644)
            self._forget(lambda name, port, _: not self._passes(name, port))
            self._apply()

    def open(self, host: str, port: int) -> list[str]:
        """The addresses the proxy may connect to for `host:port`, opened for its uid; refused
        (PermissionError) for a name no policy of the home passes through on that port."""
        name = normal_host(host)
        if not self._passes(name, port):
            self.refresh()  # a policy written within the last look
            if not self._passes(name, port):
                raise PermissionError(f"no policy passes {name}:{port} through")
        mapped = self.hosts.get(name)
        found = [mapped] if mapped else [a for a in _addresses(name, port) if off_machine(a)]
        with self.lock:
            now = time.monotonic()
            for address in found:
                self.resolved.setdefault((address, port), {})[name] = now
            self._apply()
        return found

    def _passes(self, name: str, port: int) -> bool:
        return any(passes_through(policy, name, port) for policy in self.policies)

    def _forget(self, gone) -> None:
        """Under the lock: the names `gone(name, port, last asked)` says, and addresses left with none."""
        for key, names in list(self.resolved.items()):
            for name, asked in list(names.items()):
                if gone(name, key[1], asked):
                    del names[name]
            if not names:
                del self.resolved[key]

    def _apply(self) -> None:
        """Under the lock: the table's elements to what is opened now."""
        resolved: Opened = {}
        for address, port in self.resolved:
            resolved.setdefault(address, []).append(port)
        wanted = self.fixed | self.models | nft_elements(resolved)
        self._each("add", wanted - self.elements)
        self._each("delete", self.elements - wanted)
        self.elements = wanted

    def _watch(self) -> None:
        swept = time.monotonic()
        while not self.stopping.wait(POLICY_LOOK_S):
            self.refresh()
            if time.monotonic() - swept > RESOLVED_IDLE_S / 10:
                swept = time.monotonic()
                with self.lock:
                    self._forget(lambda _name, _port, asked: swept - asked > RESOLVED_IDLE_S)
                    self._apply()

    def _each(self, verb: str, elements: set[tuple[str, str]]) -> None:
        """One command adds them all; deletes go one by one, since a delete naming one element
        already gone does nothing at all."""
        for name in ("opened4", "opened6"):
            items = sorted(e for n, e in elements if n == name)
            batches = [items] if verb == "add" else [[item] for item in items]
            for batch in batches if items else []:
                nft(verb, "element", "inet", self.table, name, "{ " + ", ".join(batch) + " }")

    def close(self, alone: bool) -> None:
        """Under the registry's lock: `alone`, no other stack of the uid runs."""
        self.stopping.set()
        self.watcher.join()
        if alone:
            nft("delete", "table", "inet", self.table)


def proxy_destinations(replica_address: str, database_url: str | None) -> Opened:
    """Where on this machine (or in its networks) the proxy may always open connections, by
    name or address: the replica server (`--replica-host`) and the environments' database."""
    host, _, port = replica_address.rpartition(":")
    wanted: Opened = {host.strip("[]"): [int(port)]}
    if database_url:
        place = urlsplit(database_url)
        wanted.setdefault(place.hostname or "localhost", []).append(place.port or 5432)
    return wanted
