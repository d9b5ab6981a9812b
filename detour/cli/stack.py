"""`detour stack status|stop`: the stack this home's commands use (`detour serve`'s, or the
background one the first command started)."""

from __future__ import annotations

import os
import signal
import time

import typer

from detour import background
from detour.cli.common import app, state
from detour.stack import running_stack

stack_app = typer.Typer(help="The stack this home's commands use.", no_args_is_help=True)
app.add_typer(stack_app, name="stack")
STOP_TIMEOUT_S = 15.0


@stack_app.command("status")
def status() -> None:
    """Which stack runs for this home, where, and how long since a command used it."""
    paths = state()
    info = running_stack(paths)
    if info is None:
        typer.echo(f"no stack runs for {paths.home}; the next command starts one in the background")
        return
    idle = background.idle_for(paths, os.stat(paths.stack_file).st_mtime)
    typer.echo(f"stack pid {info.pid}: proxy {info.host}:{info.proxy_port}, replicas {info.replica_url}; "
               f"last used {idle:.0f} s ago")


@stack_app.command("stop")
def stop() -> None:
    """Stop the home's stack (its children go with it)."""
    paths = state()
    info = running_stack(paths)
    if info is None:
        typer.echo("no stack runs")
        return
    os.kill(info.pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while time.monotonic() < deadline and running_stack(paths) is not None:
        time.sleep(0.1)
    typer.echo(f"stopped stack {info.pid}")
