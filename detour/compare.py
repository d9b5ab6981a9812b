"""Run one program in proxy mode and in rewrite mode, and say how the two differ.

Each mode gets a fresh environment from the same template. The runs diverge when their exit
codes, the requests each saw or their final states differ; each divergence is named. States are compared
after generated values (ids, URLs built from them) are replaced by aliases named after
their rows' content and clock readings are blanked, so two runs that did the same thing
compare equal.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import Counter
from pathlib import Path

from pydantic import BaseModel

from detour_core.paths import StatePaths
from detour.runner import RunResult, run_in_environment
from detour.stack import StackInfo
from mock_services.store import EnvironmentStore, Row, StateDiff
from sandbox.base import Limits, Mode, RunControl, Sandbox

# Values the replica makes up that other rows may refer to: aliased by the content of their row.
GENERATED = frozenset({"message_id", "ts", "id", "url"})
# Readings of the clock: they differ between any two runs and identify nothing, so they are
# blanked (with every ISO date-time), never aliased: rows written in the same millisecond share them.
TIMES = frozenset({"created_at", "updated_at", "createdAt", "updatedAt", "editedAt", "lastSyncId", "created",
                   "date_create", "date_created", "date_update", "date_delete", "revoked_at", "time",
                   "complete_ts", "dnd_snooze_endtime"})
ISO_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")
MODES: tuple[Mode, Mode] = ("proxy", "rewrite")


class RequestRow(BaseModel):
    request: str
    proxy: int
    rewrite: int


class Comparison(BaseModel):
    proxy: RunResult
    rewrite: RunResult
    states_match: bool
    only_in_proxy: list[Row]
    only_in_rewrite: list[Row]
    requests: list[RequestRow]
    divergences: list[str]  # what differs between the runs, in words; empty when they match

    @property
    def runs_match(self) -> bool:
        return not self.divergences


def divergences(proxy: RunResult, rewrite: RunResult, requests: list[RequestRow], states_match: bool) -> list[str]:
    """Every way the two runs differ: a matching final state alone does not make them the same
    (a rewrite run that failed before its first request leaves the state as a read-only one did)."""
    found = []
    if proxy.exit_code != rewrite.exit_code:
        found.append(f"exit codes differ: proxy {proxy.exit_code}, rewrite {rewrite.exit_code}")
    found += [f"requests differ: {r.request} seen {r.proxy} times in proxy mode, {r.rewrite} in rewrite mode"
              for r in requests if r.proxy != r.rewrite]
    if not states_match:
        found.append("final states differ")
    return found


def _replace(value, aliases: dict[str, str]):
    if isinstance(value, dict):
        return {k: _replace(v, aliases) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace(v, aliases) for v in value]
    if not isinstance(value, str):
        return value
    for original, alias in aliases.items():
        value = value.replace(original, alias)
    return value


def is_time(key: str, value: object) -> bool:
    return value is not None and (key in TIMES or (isinstance(value, str) and bool(ISO_TIME.match(value))))


def timeless(value: object) -> object:
    """A JSON value with every reading of the clock in it blanked, at any depth (an answer's body)."""
    if isinstance(value, dict):
        return {k: "<time>" if is_time(k, v) else timeless(v) for k, v in value.items()}
    return [timeless(v) for v in value] if isinstance(value, list) else value


def untimed(row: Row) -> Row:
    if "after" in row:
        return {**row, "before": untimed(row["before"]), "after": untimed(row["after"])}
    return {k: "<time>" if is_time(k, v) else v for k, v in row.items()}


def normalized_state(diff: StateDiff) -> list[str]:
    """The diff's rows as sorted JSON, each generated value (id, ts, timestamp) replaced by an
    alias named after the content of the row it belongs to, so neither the clock nor the order
    of concurrent requests matters, while references between rows (a reaction's message)
    still line up."""
    rows = [untimed(r) for r in (*diff.inserts, *diff.updates, *({**r, "__deleted__": True} for r in diff.deletes))]
    aliases: dict[str, str] = {}
    for _ in range(3):  # rows that reference generated values settle once those are aliased
        found: dict[str, str] = {}
        for row in rows:
            flat = row.get("after", row)
            stable = {k: _replace(v, aliases) for k, v in flat.items() if k not in GENERATED}
            signature = hashlib.sha1(json.dumps(stable, sort_keys=True, default=str).encode()).hexdigest()[:10]
            found |= {str(flat[k]): f"<{k}:{signature}>" for k in GENERATED & flat.keys() if flat[k] is not None}
        if found == aliases:
            break
        aliases = found
    return sorted(json.dumps(_replace(row, aliases), sort_keys=True) for row in rows)


def request_signature(record) -> str:
    status = record.status if record.status is not None else "error"
    return f"{record.method} {record.host}{record.path.split('?')[0]} -> {record.decision} {status}"


def state_difference(first: StateDiff, second: StateDiff) -> tuple[list[Row], list[Row]]:
    """The rows only the first diff has, and those only the second has, once generated values
    and clock readings are normalized: two empty lists when both did the same thing."""
    a, b = Counter(normalized_state(first)), Counter(normalized_state(second))
    return [json.loads(r) for r in (a - b).elements()], [json.loads(r) for r in (b - a).elements()]


def compare(state: StatePaths, stack: StackInfo, sandbox: Sandbox, template: str, argv: list[str],
            program: Path | None, limits: Limits | None = None, stop: threading.Event | None = None) -> Comparison:
    """`stop` (set): the runs end as "interrupted", and what they did so far is compared."""
    store = EnvironmentStore(state)
    results = {mode: run_in_environment(state, stack, store.create(template).env_id, sandbox, argv,
                                        program=program, limits=limits, mode=mode,
                                        control=RunControl(stop=stop) if stop else None) for mode in MODES}
    only_in_proxy, only_in_rewrite = state_difference(results["proxy"].diff, results["rewrite"].diff)
    counts = {mode: Counter(request_signature(r) for r in results[mode].requests) for mode in MODES}
    signatures = sorted(set(counts["proxy"]) | set(counts["rewrite"]))
    requests = [RequestRow(request=s, proxy=counts["proxy"][s], rewrite=counts["rewrite"][s]) for s in signatures]
    states_match = not only_in_proxy and not only_in_rewrite
    return Comparison(
        proxy=results["proxy"], rewrite=results["rewrite"], states_match=states_match,
        only_in_proxy=only_in_proxy, only_in_rewrite=only_in_rewrite, requests=requests,
        divergences=divergences(results["proxy"], results["rewrite"], requests, states_match))
