"""Run an agent over an AgentDiff test suite: one fresh environment per test, then its assertions.

The agent is any command. It runs in a sandbox like `detour run`, with the task in
DETOUR_PROMPT (and DETOUR_TEST_ID, DETOUR_ACTING_USER); its score is the share of tests
whose assertions all pass against the environment's diff.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from mock_services.assertions import AssertionResult, InvalidAssertions, evaluate_environment, parse_spec, read_json
from detour_core.paths import StatePaths
from detour.runner import run_in_environment
from detour.stack import StackInfo
from mock_services.store import EnvironmentStore
from sandbox.base import Limits, Mode, Sandbox


class TestOutcome(BaseModel):
    id: str
    name: str
    env_id: str
    exit_code: int | None
    passed: bool
    assertions: list[AssertionResult]
    stderr_tail: str


class SuiteReport(BaseModel):
    suite: str
    tests: list[TestOutcome]

    @property
    def passed(self) -> int:
        return sum(t.passed for t in self.tests)


def load_suite(path: Path) -> dict:
    suite = read_json(path)
    if not isinstance(suite, dict) or not isinstance(suite.get("tests"), list) or not suite["tests"]:
        raise InvalidAssertions(f"{path} is not a test suite: expected an object with a list of 'tests'")
    return suite


def run_suite(state: StatePaths, stack: StackInfo, sandbox: Sandbox, path: Path, agent: list[str],
              mode: Mode = "proxy", only: str | None = None, limits: Limits | None = None,
              progress: Callable[[TestOutcome], None] = lambda _: None) -> SuiteReport:
    suite = load_suite(path)
    tests = [t for t in suite["tests"] if only is None or t.get("id") == only]
    if not tests:
        raise InvalidAssertions(f"no test {only!r} in {path}")
    store = EnvironmentStore(state)
    outcomes = []
    for test in tests:
        spec = parse_spec(test, suite.get("ignore_fields"))  # fail on a bad spec before running anything
        user = test.get("impersonate_user_id")
        env_id = store.create(test["seed_template"], acting_user=user, template_dirs=(path.parent / "seeds",)).env_id
        task = {"DETOUR_PROMPT": test.get("prompt", ""), "DETOUR_TEST_ID": str(test.get("id")),
                "DETOUR_ACTING_USER": user or ""}
        result = run_in_environment(state, stack, env_id, sandbox, agent, limits=limits, mode=mode, task=task)
        checks = evaluate_environment(spec, store, env_id)
        outcome = TestOutcome(id=str(test.get("id")), name=test.get("name", ""), env_id=env_id,
                              exit_code=result.exit_code, passed=all(c.passed for c in checks), assertions=checks,
                              stderr_tail=result.stderr[-2000:])
        progress(outcome)
        outcomes.append(outcome)
    return SuiteReport(suite=suite.get("name", path.stem), tests=outcomes)
