"""`detour logs`: the audit records, followed, summarised or exported as HAR."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from detour import reports
from detour.cli.common import JsonOpt, app, fail, state
from detour_core.audit import UNATTRIBUTED, AuditLog, AuditRecord
from detour_core.audit_verify import verify

FOLLOW_POLL_S = 0.2


def record_line(r: AuditRecord) -> str:
    return (f"{r.ts} {r.env_id or '-'} {r.decision:<12} {r.status or '-'} {r.method} "
            f"{r.scheme}://{r.host}:{r.port}{r.path}" + (f"  ({r.reason})" if r.reason else ""))


def follow_records(audit: AuditLog, env: str | None, as_json: bool) -> None:
    """New records as they are written, until interrupted (every environment's, without --env)."""
    positions: dict[str | None, tuple[int, int]] = {}
    try:
        while True:
            for env_id in [env] if env else audit.environments():
                records, positions[env_id] = audit.read(env_id, positions.get(env_id, (0, 0)))
                for r in records:
                    typer.echo(r.model_dump_json(exclude_none=True) if as_json else record_line(r))
            time.sleep(FOLLOW_POLL_S)
    except KeyboardInterrupt:
        pass


@app.command()
def logs(env: Annotated[Optional[str], typer.Option(help="Only this environment.")] = None,
         follow: Annotated[bool, typer.Option("--follow", "-f", help="Keep printing new records.")] = False,
         har: Annotated[Optional[Path], typer.Option(help="Write the records as HAR 1.2 to this file.")] = None,
         summary: Annotated[bool, typer.Option("--summary", help="Counts by host, decision and status, bytes, "
                                                             "the slowest requests.")] = False,
         verify: Annotated[bool, typer.Option("--verify", help="Check each environment's hash chain; exit 1 "
                                                           "naming any record edited, removed or moved.")] = False,
         suggest_policy: Annotated[bool, typer.Option(
             "--suggest-policy", help="Print (or write to --output) a policy allowing exactly the hosts, methods "
                                      "and paths the environment used, for review; hosts it was denied are "
                                      "listed apart.")] = False,
         output: Annotated[Optional[Path], typer.Option(help="Where --suggest-policy writes.")] = None,
         as_json: JsonOpt = False) -> None:
    """The audit records: one per request the proxy saw, and one per connection that made none."""
    audit = AuditLog(state().audit_dir)
    if env and env not in audit.environments():
        from mock_services.store import EnvironmentStore
        EnvironmentStore(state()).get(env)  # no records yet is fine; no such environment is an error
    if verify:
        raise typer.Exit(verify_chains(audit, env))
    if suggest_policy:
        if not env:
            raise fail("--suggest-policy needs --env: a policy is one environment's")
        records = audit.read(env)[0]
        suggestion = reports.suggested_policy(records).model_dump_json(indent=2)
        if denied := reports.denied_hosts(records):
            typer.echo(f"detour: denied and not proposed (no policy allowed them; --allow one on purpose): "
                       f"{', '.join(denied)}", err=True)
        if output:
            output.write_text(suggestion + "\n")
            typer.echo(f"policy written to {output}; apply it with `detour env policy {env} --policy {output}`",
                       err=True)
        else:
            typer.echo(suggestion)
        return
    if follow:
        follow_records(audit, env, as_json)
        return
    records = audit.read(env)[0] if env else audit.all()
    if har:
        har.write_text(json.dumps(reports.har(records), indent=1))
        typer.echo(f"{len(records)} entries written to {har}", err=True)
    elif summary:
        report = reports.summarize(records)
        typer.echo(report.model_dump_json(indent=2) if as_json else summary_text(report))
    else:
        for r in records:
            typer.echo(r.model_dump_json(exclude_none=True) if as_json else record_line(r))


def verify_chains(audit: AuditLog, env: str | None) -> int:
    """Every environment's chain (or one's); the exit code: 1 if any is broken."""
    broken = 0
    for env_id in [env] if env else audit.environments():
        result = verify(audit, env_id)
        name = env_id or UNATTRIBUTED
        typer.echo(f"{name}: {result.records} records, " + ("chain intact" if result.intact else
                                                          f"{len(result.problems)} broken link(s)"))
        for problem in result.problems:
            typer.echo(f"  {problem}")
        broken += not result.intact
    return 1 if broken else 0


def summary_text(report: reports.Summary) -> str:
    def counts(title: str, values: dict[str, int]) -> str:
        return f"{title}: " + (", ".join(f"{k} {v}" for k, v in values.items()) or "none")
    lines = [f"{report.requests} records, {report.request_bytes} bytes sent, {report.response_bytes} received",
             counts("by decision", report.by_decision), counts("by status", report.by_status),
             counts("by host", report.by_host), "slowest:"]
    lines += [f"  {s.duration_ms:8.1f} ms  {s.status or '-'} {s.method} {s.url}" for s in report.slowest]
    return "\n".join(lines)
