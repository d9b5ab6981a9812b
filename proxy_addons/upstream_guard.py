"""Fail closed: the proxy may open a connection to the replica, and to the hosts routing passed
through for that very client connection (an environment's policy allowed them), nowhere else.

Routing already answers denied hosts itself; this guard is the second wall, so a bug in
routing (or a new mitmproxy code path) cannot turn into a connection to the internet.
It fires before mitmproxy resolves the address, so there is no DNS either. A proxy under its
own user (detour/proxy_user.py) may reach only addresses its stack's root process opened: for
a name passed through, it asks that process, which resolves the name, and connects to the
address it answers (the server's SNI stays the name). Once connected, the server's address is
the name again: mitmproxy gives a later request the open connection whose address is the
request's, and a connection left under its address would never be reused (one more upstream
connection per request, each kept open).
"""

from __future__ import annotations

import weakref

from mitmproxy import connection, ctx, exceptions
from mitmproxy.proxy import server_hooks

from detour_core.hosts import is_address
from proxy_addons.routing import parse_address
from proxy_addons.verdict import PERMITTED
from sandbox.inbound import open_upstream


class UpstreamGuard:
    def __init__(self) -> None:
        self.allowed: tuple[str, int] | None = None
        self.hosts: dict[str, str] = {}
        self.named: weakref.WeakKeyDictionary[connection.Server, tuple[str, int]] = weakref.WeakKeyDictionary()

    def load(self, loader) -> None:
        loader.add_option("detour_upstream_hosts", str, "",
                          "name=address,... : where pass-through connections to these names go instead of DNS "
                          "(a test's own upstream server).")

    def configure(self, updated: set[str]) -> None:
        if "detour_replica" in updated:
            self.allowed = parse_address(ctx.options.detour_replica)
        if "detour_upstream_hosts" in updated:
            pairs = [p.split("=", 1) for p in ctx.options.detour_upstream_hosts.split(",") if p]
            if any(len(p) != 2 for p in pairs):
                raise exceptions.OptionsError("detour_upstream_hosts wants name=address,...")
            self.hosts = {name.lower(): address for name, address in pairs}

    async def server_connect(self, data: server_hooks.ServerConnectionHookData) -> None:
        address = data.server.address
        if self.allowed is not None and address == self.allowed:
            return
        if address is not None and address in PERMITTED.get(data.client, ()):
            opened = [] if is_address(address[0]) else await open_upstream(*address)
            target = opened[0] if opened else self.hosts.get(address[0])
            if target:
                self.named[data.server] = address
                data.server.address = (target, address[1])
            return
        data.server.error = f"detour: upstream {address} blocked"

    def server_connected(self, data: server_hooks.ServerConnectionHookData) -> None:
        """The name back as the open connection's address (its peername is the address): the
        same destination, so not the change of destination Server's own setter refuses."""
        name = self.named.pop(data.server, None)
        if name is not None:
            data.server.__dict__["address"] = name
