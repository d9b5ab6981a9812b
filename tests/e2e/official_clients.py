"""What the official clients' tests share. `run_official_client`: what every generated pack's
test checks (tests/e2e/test_*_client.py): the program, run unmodified on the given backend
(namespace unless told; the tests run it on docker too), exits 0 printing the expected JSON;
every request went to the vendor's hosts; the diff inserted exactly these tables' rows, changed
rows only of the tables `updated` names, and deleted nothing. `run_node_client`: a program of a vendor's Node client, where a user
would have that client on each backend."""

from __future__ import annotations

import json

import pytest

import detour
from detour.runner import RunResult
from tests.conftest import NODE_CLIENTS


def run_official_client(live_stack, template: str, agent: str, expected: dict, hosts: set[str],
                        inserted: list[str], backend: str = "namespace", updated: frozenset[str] = frozenset()) -> RunResult:
    result = live_stack.run(live_stack.env(template), agent, ".py", backend=backend)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == expected
    assert {r.host for r in result.requests} == hosts
    assert sorted(row["__table__"] for row in result.diff.inserts) == inserted
    assert {row["__table__"] for row in result.diff.updates} == updated and not result.diff.deletes
    return result


def run_node_client(live_stack, request: pytest.FixtureRequest, backend: str, package: str, source: str,
                    template: str) -> RunResult:
    """`source` (an ES module) run unmodified in a new environment of `template`, importing the
    official client `package`: on docker from the image derived from tests/node_clients (as a
    user derives one), elsewhere from tests/node_clients' node_modules."""
    if not (NODE_CLIENTS / package).is_dir():
        pytest.fail(f"run `make test` (it installs {NODE_CLIENTS.parent}/package.json)")
    program = request.getfixturevalue("tmp_path") / "agent.mjs"
    program.write_text(source)
    runtime = {"image": request.getfixturevalue("node_clients_image")} if backend == "docker" else \
        {"node_modules": NODE_CLIENTS}
    with detour.Client(home=live_stack.state.home, stack=live_stack.info, backend=backend, **runtime) as client:
        return client.run(program, env=client.environments.create(template).env_id)
