"""`detour stack status|stop`: the stack this home's commands use (`detour serve`'s, or the
background one the first command started)."""

from __future__ import annotations

import os
import signal
import time

import typer

from detour import background
from detour.cli.common import app, fail, state
from detour.stack import PARTS, StackInfo, record_file, running_stacks
from detour_core.paths import StatePaths

stack_app = typer.Typer(help="The stack this home's commands use.", no_args_is_help=True)
app.add_typer(stack_app, name="stack")
STOP_TIMEOUT_S = 15.0


def describe(paths: StatePaths, info: StackInfo) -> str:
    """One line per server: what it runs, where, and (a background stack) when it leaves."""
    record = record_file(paths, info.parts)
    idle = background.idle_for(paths, record.stat().st_mtime)
    kind = (f"background stack pid {info.pid} (leaves after {info.idle_exit_s:.0f} s unused)" if info.idle_exit_s
            else f"stack pid {info.pid}" if info.parts == PARTS else f"detour serve --only {info.parts[0]}, pid {info.pid}")
    where = [f"proxy {info.host}:{info.proxy_port}"] if "proxy" in info.parts else []
    where += [f"replicas {info.replica_url}"]
    return f"{kind}: {', '.join(where)}; last used {idle:.0f} s ago"


@stack_app.command("status")
def status() -> None:
    """Which stack runs for this home (and `--only` parts), where, and how long since a command used it."""
    paths = state()
    found = running_stacks(paths)
    if not found:
        typer.echo(f"no stack runs for {paths.home}; the next command starts one in the background")
    for info in found:
        typer.echo(describe(paths, info))


@stack_app.command("stop")
def stop() -> None:
    """Stop the home's stack and `--only` parts (their children go with them)."""
    from detour_core.processes import ended, start_time  # psutil: only a stop pays for it

    paths = state()
    found = running_stacks(paths)
    if not found:
        typer.echo("no stack runs")
    for info in found:
        started = start_time(info.pid)  # a pid given to another process meanwhile is not this one
        os.kill(info.pid, signal.SIGTERM)
        # Until its process ends, not only its listeners: after them it still removes what its
        # proxy user holds (nftables table, broker socket, cgroups), which a signal sent on the word
        # "stopped" would cut short.
        deadline = time.monotonic() + STOP_TIMEOUT_S
        while time.monotonic() < deadline and not ended(info.pid, started):
            time.sleep(0.05)
        if not ended(info.pid, started):
            raise fail(f"stack {info.pid} has not stopped after {STOP_TIMEOUT_S:.0f} s; see {paths.home / 'logs'}", 1)
        typer.echo(f"stopped stack {info.pid}")
