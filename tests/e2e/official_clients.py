"""What every generated pack's official-client test checks (tests/e2e/test_*_client.py): the
program, run unmodified on the given backend (namespace unless told; the tests run it on docker
too), exits 0 printing the expected JSON; every request went to the vendor's hosts; the diff
inserted exactly these tables' rows and changed nothing else."""

from __future__ import annotations

import json

from detour.runner import RunResult


def run_official_client(live_stack, template: str, agent: str, expected: dict, hosts: set[str],
                        inserted: list[str], backend: str = "namespace") -> RunResult:
    result = live_stack.run(live_stack.env(template), agent, ".py", backend=backend)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == expected
    assert {r.host for r in result.requests} == hosts
    assert sorted(row["__table__"] for row in result.diff.inserts) == inserted
    assert not result.diff.updates and not result.diff.deletes
    return result
