"""`detour services`: the replicated services, their hosts, and how much of each vendor's API
the replica serves (mock_services/coverage.py: counted from the packs themselves), and how many of
the vendor's official-client cases it passed when `make fidelity` last measured it
(mock_services/fidelity.py)."""

from __future__ import annotations

import json

import typer

from detour.cli.common import JsonOpt, app
from detour_core.registry import packs
from mock_services.coverage import KINDS, counts, of
from mock_services.fidelity import load


@app.command()
def services(as_json: JsonOpt = False) -> None:
    """List the replicated services: hosts, operations stateful, generated or not served, and
    the official-client cases passed when last measured."""
    measured = load()
    rows = [{"service": p.name, "hosts": [h + ("" if prefix == "/" else prefix) for h, prefix in p.host_routes()],
             **(counts(found) if (found := of(p)) is not None else dict.fromkeys(KINDS)),
             "fidelity": found.summary() if (found := measured.get(p.name)) else None} for p in packs()]
    if as_json:
        typer.echo(json.dumps(rows, indent=1))
        return
    typer.echo(f"{'service':<12} {'stateful':>8} {'generated':>9} {'not served':>10} {'fidelity':>8}  hosts")
    for row in rows:
        numbers = " ".join(f"{'-' if row[k] is None else row[k]:>{w}}" for k, w in zip(KINDS, (8, 9, 10)))
        score = measured[row["service"]].score() if row["fidelity"] else "-"
        typer.echo(f"{row['service']:<12} {numbers} {score:>8}  {', '.join(row['hosts'])}")
    typer.echo(f"{len(rows)} services; fidelity: the vendor's official-client cases passed "
               f"({', '.join(sorted({f.when() for f in measured.values()})) or 'not measured'}: make fidelity)")
