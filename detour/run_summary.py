"""What `detour run` prints after the program's own output: the fast path and the full CLI
print a run's result the same way, from its JSON form."""

from __future__ import annotations

import json
import sys

DECISIONS = ("routed", "allowed", "denied", "unauthorized")


def summary(result: dict) -> str:
    """The line after a run: environment, exit, time, requests by decision, the diff's size."""
    decisions = [r["decision"] for r in result["requests"]]
    counts = ", ".join(f"{decisions.count(d)} {d}" for d in DECISIONS if d in decisions) or "none"
    killed = f", killed: {result['killed_reason']}" if result.get("killed_reason") else ""
    d = result["diff"]
    return (f"detour: env {result['env_id']}, exit {result['exit_code']}{killed}, {result['duration_ms']:.0f} ms; "
            f"requests: {counts}; environment since creation: {len(d['inserts'])} inserts, {len(d['updates'])} "
            f"updates, {len(d['deletes'])} deletes")


def report(result: dict, as_json: bool, streamed: bool = False) -> int:
    """Print a run's result (its output, unless `streamed` already passed it on as it came; then
    the summary on stderr); the exit code to leave with."""
    if as_json:
        print(json.dumps(result, indent=2))
    else:
        output = result["stdout"] + result["stderr"]
        if not streamed:
            sys.stdout.write(result["stdout"])
            sys.stdout.flush()
            sys.stderr.write(result["stderr"])
        separator = "" if output.endswith("\n") or not output else "\n"
        sys.stderr.write(separator + "".join(w + "\n" for w in result.get("warnings", [])) + summary(result) + "\n")
    return result["exit_code"] or 0


def interrupted(result: dict, deleted: str | None = None) -> str:
    """The line after a run its user stopped (Ctrl-C, SIGTERM): what was done, what is left."""
    kept = f"deleted environment {deleted} (--rm)" if deleted else f"environment {result['env_id']} keeps what it did"
    return f"detour: interrupted: stopped the program after {result['duration_ms'] / 1000:.1f} s; {kept}"
