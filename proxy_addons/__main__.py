"""The detour proxy: mitmproxy's core with detour's addons built in, and nothing else.

    python -m proxy_addons --mode regular@HOST:PORT [--mode ...] [--set NAME=VALUE ...] [-q]

The stack runs this rather than `mitmdump -s detour_proxy.py`: a script loads after
mitmproxy's listeners open, so for a moment a port would accept connections with no routing
and no upstream guard, and a script is reloaded whenever its file changes. Here the addons
are part of the master before anything listens, and stay as they were started.

The master carries only the mitmproxy addons a proxy needs (options, listeners, protocol
detection, TLS, blocking of public clients, h2c refused, startup errors); mitmdump's others
(playback, map-remote, modify-headers, save, ...) would each look at every request for work
detour never gives them. Its addon manager finds each event's handlers once (hook_table.py).

It runs on uvloop's event loop (a dependency already: the replica server's): the fast path's
TLS and socket transports (fast_path.py) are then compiled ones rather than asyncio's
pure-Python SSL protocol (`make bench`, two cores kept apart: a replica call ~7% less CPU on a
kept connection, ~14% less on a new one). mitmproxy's master makes its tasks eager on Python
3.12 and later, which uvloop's loop refuses on 3.13 (detour's images): here they start as they
did before 3.12.
"""

import argparse
import asyncio
import contextlib
import sys

import uvloop

from mitmproxy import master, options
from mitmproxy.addons import block, core, disable_h2c, errorcheck, next_layer, proxyserver, tlsconfig
from mitmproxy.tools import main

from proxy_addons.detour_proxy import addons
from proxy_addons.hook_table import HookTable


def proxy_core() -> list:
    return [core.Core(), block.Block(), disable_h2c.DisableH2C(), proxyserver.Proxyserver(),
            next_layer.NextLayer(), tlsconfig.TlsConfig(), errorcheck.ErrorCheck()]


class DetourMaster(master.Master):
    addons_after_core: list = addons  # bench/proxy_floor.py's master carries one hook instead

    def __init__(self, opts: options.Options) -> None:
        super().__init__(opts, with_termlog=True)
        made = self.addons  # Master's own manager steps aside, handing over the terminal log it loaded
        opts.changed.disconnect(made._configure_all)
        self.addons = HookTable(self)
        self.addons.chain, self.addons.lookup = made.chain, made.lookup
        self.addons.add(*proxy_core(), *self.addons_after_core)


def command_line(opts: options.Options) -> argparse.ArgumentParser:
    """The words the stack passes: listeners, options, quiet (what mitmproxy's runner reads)."""
    parser = argparse.ArgumentParser(prog="python -m proxy_addons")
    opts.make_parser(parser, "mode", metavar="MODE")
    parser.add_argument("--set", dest="setoptions", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("-q", "--quiet", action="store_true")
    parser.set_defaults(version=False, options=False, commands=False, verbose=False)
    return parser


def on_uvloop() -> None:
    """mitmproxy's runner makes its loop with asyncio.run: the policy decides whose it is."""
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    master.asyncio_utils.set_eager_task_factory = contextlib.nullcontext


if __name__ == "__main__":
    on_uvloop()
    main.run(DetourMaster, command_line, sys.argv[1:])
