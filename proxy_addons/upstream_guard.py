"""Fail closed: the proxy may open a connection to the replica and nowhere else.

Routing already answers denied hosts itself; this guard is the second wall, so a bug in
routing (or a new mitmproxy code path) cannot turn into a connection to the internet.
It fires before mitmproxy resolves the address, so there is no DNS either.
"""

from __future__ import annotations

from mitmproxy import ctx
from mitmproxy.proxy import server_hooks

from proxy_addons.routing import parse_address


class UpstreamGuard:
    def __init__(self) -> None:
        self.allowed: tuple[str, int] | None = None

    def configure(self, updated: set[str]) -> None:
        if "detour_replica" in updated:
            self.allowed = parse_address(ctx.options.detour_replica)

    def server_connect(self, data: server_hooks.ServerConnectionHookData) -> None:
        if self.allowed is None or data.server.address != self.allowed:
            data.server.error = f"detour: upstream {data.server.address} blocked"
