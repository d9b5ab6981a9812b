"""`detour replay`: a run's recorded requests sent again into a fresh environment, compared."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Annotated, Optional

import typer

from detour.cli.common import JsonOpt, app, client, fail
from detour.interrupts import INTERRUPTED_EXIT, stopping_on_signals
from mock_services.clock import instant


@app.command("replay")
def replay(records: Annotated[Optional[Path], typer.Argument(help="Records as `detour logs --json` prints them.")]
           = None,
           env: Annotated[Optional[str], typer.Option(help="Replay this environment's own records (its template, "
                                                           "clock and seed), and compare states with it.")] = None,
           template: Annotated[Optional[str], typer.Option(help="The fresh environment's template.")] = None,
           clock: Annotated[Optional[str], typer.Option(help="Its clock, frozen at this time (ISO 8601): the "
                                                            "original run's, for answers that repeat.")] = None,
           seed: Annotated[Optional[str], typer.Option(help="Its seed (the ids it draws): the original's.")] = None,
           as_json: JsonOpt = False) -> None:
    """Send the requests again, in order, into a fresh environment; exit 1 if answers or states differ."""
    try:
        at = instant(clock) if clock else None
    except ValueError as e:
        raise fail(f"--clock: {e}") from None
    stop = threading.Event()
    with stopping_on_signals(stop):
        done = client().replay(env=env, records=records, template=template, stop=stop, clock=at, seed=seed)
    if as_json:
        typer.echo(done.model_dump_json(indent=2))
    else:
        for mismatch in done.mismatches:
            typer.echo(f"request {mismatch.n} {mismatch.request}: {mismatch.reason}; {mismatch.cause}")
        states = {None: "no original environment to compare states with", True: "final states match",
                  False: "final states differ"}[done.states_match]
        typer.echo(f"replayed {done.sent} requests into {done.env_id} ({done.skipped} not sent): "
                   f"{done.answers_matched} answers as before; {states}")
    if stop.is_set():
        raise fail(f"interrupted: stopped after {done.sent} requests; environment {done.env_id} keeps what they did",
                   INTERRUPTED_EXIT)
    if done.diverged:
        raise typer.Exit(1)
