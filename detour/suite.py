"""Run an agent over an AgentDiff test suite: one fresh environment per test, then its assertions.

The agent is any command. It runs in a sandbox like `detour run`, with the task in
DETOUR_PROMPT (and DETOUR_TEST_ID, DETOUR_ACTING_USER); its score is the share of tests
whose assertions all pass against the environment's diff.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, Field

from mock_services.assertions import (AssertionResult, InvalidAssertions, check_entities, evaluate_environment,
                                      load_suite)
from detour_core.paths import StatePaths
from detour.runner import run_in_environment
from detour.stack import StackInfo
from mock_services.store import EnvironmentStore, StateDiff
from mock_services.templates import load_template
from sandbox.base import Limits, Mode, Sandbox

TAIL_CHARS = 2000  # of the agent's stdout and stderr: enough to see why, small enough for a report


class TestOutcome(BaseModel):
    id: str
    name: str
    env_id: str
    exit_code: int | None
    passed: bool
    assertions: list[AssertionResult]
    stdout_tail: str = Field(description=f"The agent's last {TAIL_CHARS} characters of stdout.")
    stderr_tail: str = Field(description=f"The agent's last {TAIL_CHARS} characters of stderr.")
    diff: StateDiff = Field(description="What the agent changed in its environment: what the assertions read.")


class SuiteReport(BaseModel):
    suite: str
    tests: list[TestOutcome]

    @property
    def passed(self) -> int:
        return sum(t.passed for t in self.tests)


def run_suite(state: StatePaths, stack: StackInfo, sandbox: Sandbox, path: Path, agent: list[str],
              mode: Mode = "proxy", only: str | None = None, limits: Limits | None = None,
              progress: Callable[[TestOutcome], None] = lambda _: None) -> SuiteReport:
    suite = load_suite(path)  # every test and assertion checked before anything runs
    tests = [suite.test(only)] if only is not None else suite.tests
    for test in tests:  # every seed and entity found before anything runs
        if not test.seed_template:
            raise InvalidAssertions(f"{path}: test {test.id} names no seed_template to start from")
        seed = load_template(state, test.seed_template, (path.parent / "seeds",))
        check_entities(test.spec(), seed.service, set(seed.tables), f"{path}: test {test.id} ({seed.name})")
    store = EnvironmentStore(state)
    outcomes = []
    for test in tests:
        user = test.impersonate_user_id
        env_id = store.create(test.seed_template, acting_user=user, template_dirs=(path.parent / "seeds",)).env_id
        task = {"DETOUR_PROMPT": test.prompt, "DETOUR_TEST_ID": str(test.id), "DETOUR_ACTING_USER": user or ""}
        result = run_in_environment(state, stack, env_id, sandbox, agent, limits=limits, mode=mode, task=task)
        checks = evaluate_environment(test.spec(suite.ignore_fields), store, env_id)
        outcome = TestOutcome(id=str(test.id), name=test.name, env_id=env_id, exit_code=result.exit_code,
                              passed=all(c.passed for c in checks), assertions=checks,
                              stdout_tail=result.stdout[-TAIL_CHARS:], stderr_tail=result.stderr[-TAIL_CHARS:],
                              diff=result.diff)
        progress(outcome)
        outcomes.append(outcome)
    return SuiteReport(suite=suite.name or path.stem, tests=outcomes)
