"""`detour services`: the replicated services, their hosts, and how much of each vendor's API
the replica serves (mock_services/coverage.py: counted from the packs themselves)."""

from __future__ import annotations

import json

import typer

from detour.cli.common import JsonOpt, app
from detour_core.registry import packs
from mock_services.coverage import KINDS, counts, of


@app.command()
def services(as_json: JsonOpt = False) -> None:
    """List the replicated services: hosts and operations stateful, generated or not served."""
    rows = [{"service": p.name, "hosts": [h + ("" if prefix == "/" else prefix) for h, prefix in p.host_routes()],
             **(counts(found) if (found := of(p)) is not None else dict.fromkeys(KINDS))} for p in packs()]
    if as_json:
        typer.echo(json.dumps(rows, indent=1))
        return
    typer.echo(f"{'service':<12} {'stateful':>8} {'generated':>9} {'not served':>10}  hosts")
    for row in rows:
        numbers = " ".join(f"{'-' if row[k] is None else row[k]:>{w}}" for k, w in zip(KINDS, (8, 9, 10)))
        typer.echo(f"{row['service']:<12} {numbers}  {', '.join(row['hosts'])}")
    typer.echo(f"{len(rows)} services")
