"""`detour replay`: a run's recorded requests sent again into a fresh environment, compared."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Annotated, Optional

import typer

from detour.cli.common import JsonOpt, app, client, fail
from detour.interrupts import INTERRUPTED_EXIT, stopping_on_signals


@app.command("replay")
def replay(records: Annotated[Optional[Path], typer.Argument(help="Records as `detour logs --json` prints them.")]
           = None,
           env: Annotated[Optional[str], typer.Option(help="Replay this environment's own records (its template, "
                                                           "clock and seed), and compare states with it.")] = None,
           template: Annotated[Optional[str], typer.Option(help="The fresh environment's template.")] = None,
           as_json: JsonOpt = False) -> None:
    """Send the requests again, in order, into a fresh environment; exit 1 if answers or states differ."""
    stop = threading.Event()
    with stopping_on_signals(stop):
        done = client().replay(env=env, records=records, template=template, stop=stop)
    if as_json:
        typer.echo(done.model_dump_json(indent=2))
    else:
        for mismatch in done.mismatches:
            typer.echo(f"request {mismatch.n} {mismatch.request}: {mismatch.reason}")
        states = {None: "no original environment to compare states with", True: "final states match",
                  False: "final states differ"}[done.states_match]
        typer.echo(f"replayed {done.sent} requests into {done.env_id} ({done.skipped} not sent): "
                   f"{done.answers_matched} answers as before; {states}")
    if stop.is_set():
        raise fail(f"interrupted: stopped after {done.sent} requests; environment {done.env_id} keeps what they did",
                   INTERRUPTED_EXIT)
    if done.diverged:
        raise typer.Exit(1)
