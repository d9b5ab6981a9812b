"""Let several proxy processes listen on the same ports (SO_REUSEPORT).

One mitmdump runs its flows on one core. With `detour_reuse_port`, each of a stack's proxy
workers binds the same regular, transparent and gateway ports, and the kernel spreads new
connections across them; everything the addons keep between requests is per connection, in
files, or in the database, so any worker can take any connection. mitmproxy has no option
for this, but its TCP listeners come from `asyncio.start_server`, which takes `reuse_port`.
"""

from __future__ import annotations

import asyncio
import functools

from mitmproxy import ctx


class SharedPorts:
    def load(self, loader) -> None:
        loader.add_option("detour_reuse_port", bool, False,
                          "Listen with SO_REUSEPORT, so that several proxy workers share each port.")

    def configure(self, updated: set[str]) -> None:
        if "detour_reuse_port" in updated and ctx.options.detour_reuse_port:
            if not isinstance(asyncio.start_server, functools.partial):
                asyncio.start_server = functools.partial(asyncio.start_server, reuse_port=True)
