"""Run an agent over an AgentDiff test suite: one fresh environment per test, then its assertions.

The agent is any command. It runs in a sandbox like `detour run`, with the task in
DETOUR_PROMPT (and DETOUR_TEST_ID, DETOUR_ACTING_USER); its score is the share of tests
whose assertions all pass against the environment's diff. Rollouts run on several workers at
once and stream as they finish (an RL trainer's loop); each has its own environment and
credentials, and the backend makes each its own sandbox, so the order they finish in
changes no score.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from itertools import takewhile
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, computed_field

from mock_services.assertions import (AssertionResult, InvalidAssertions, Suite, SuiteTest, check_entities,
                                      evaluate_environment, load_suite)
from detour_core.audit import AuditRecord
from detour_client.rollouts import stream
from detour_core.paths import StatePaths
from detour.runner import run_in_environment
from detour.stack import StackInfo
from mock_services.store import EnvironmentStore, StateDiff
from mock_services.templates import load_template
from sandbox.base import Limits, Mode, RunControl, Sandbox

# The shell's "found but not runnable" and "not found": an agent that never started passes no test,
# whatever its assertions would say of an untouched environment.
NOT_STARTED = (126, 127)
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
    rollout: int = Field(0, description="Which of the test's rollouts this is (0 to n-1).")
    killed_reason: str | None = Field(None, description="The limit that ended the agent, or `interrupted` (its "
                                                        "user stopped the suite: the test does not pass).")
    duration_ms: float = Field(0.0, description="Wall time from the environment's creation to the assertions' result.")
    model_calls: list[AuditRecord] = Field([], description="The agent's own model calls' records (model, tokens, "
                                                           "time to first token; prompts and answers where captured).")

    @computed_field(description="The share of the test's assertions that pass: an RL reward in [0, 1].")
    @property
    def score(self) -> float:
        return score_of(self.assertions)


def score_of(checks: list[AssertionResult]) -> float:
    """The share of assertions that pass (a test with none passes whole)."""
    return sum(c.passed for c in checks) / len(checks) if checks else 1.0


class SuiteReport(BaseModel):
    suite: str
    tests: list[TestOutcome]

    @property
    def passed(self) -> int:
        return sum(t.passed for t in self.tests)


def prepare_suite(state: StatePaths, path: Path, only: str | None = None) -> tuple[Suite, list[SuiteTest]]:
    """The suite and the tests to run, every test, assertion, seed and entity checked before anything runs."""
    suite = load_suite(path)
    tests = [suite.test(only)] if only is not None else suite.tests
    for test in tests:
        if not test.seed_template:
            raise InvalidAssertions(f"{path}: test {test.id} names no seed_template to start from")
        seed = load_template(state, test.seed_template, (path.parent / "seeds",))
        check_entities(test.spec(), list(seed.held()), seed.is_world, set(seed.tables),
                       f"{path}: test {test.id} ({seed.name})")
    return suite, tests


def run_test(state: StatePaths, stack: StackInfo, sandbox: Sandbox, path: Path, suite: Suite, test: SuiteTest,
             agent: list[str], mode: Mode = "proxy", limits: Limits | None = None, rollout: int = 0,
             keep: bool = True, stop: threading.Event | None = None) -> TestOutcome:
    """One rollout: a fresh environment from the test's seed, the agent, the assertions; without
    `keep`, the environment is deleted once its diff and assertions are read. `stop`: set, the
    agent is stopped and the test does not pass."""
    started = time.perf_counter()
    store = EnvironmentStore(state)
    user = test.impersonate_user_id
    env_id = store.create(test.seed_template, acting_user=user, template_dirs=(path.parent / "seeds",),
                          timeline=test.timeline).env_id
    try:
        task = {"DETOUR_PROMPT": test.prompt, "DETOUR_TEST_ID": str(test.id), "DETOUR_ACTING_USER": user or ""}
        result = run_in_environment(state, stack, env_id, sandbox, agent, limits=limits, mode=mode, task=task,
                                    control=RunControl(stop=stop) if stop else None)
        checks = evaluate_environment(test.spec(suite.ignore_fields), store, env_id)
    finally:
        if not keep:
            store.delete(env_id)
    return TestOutcome(id=str(test.id), name=test.name, env_id=env_id, exit_code=result.exit_code,
                       passed=(all(c.passed for c in checks) and result.killed_reason != "interrupted"
                               and result.exit_code not in NOT_STARTED),
                       assertions=checks, killed_reason=result.killed_reason,
                       stdout_tail=result.stdout[-TAIL_CHARS:], stderr_tail=result.stderr[-TAIL_CHARS:],
                       diff=result.diff, rollout=rollout, duration_ms=round((time.perf_counter() - started) * 1000, 1),
                       model_calls=result.model_calls)


def stream_suite(state: StatePaths, stack: StackInfo, sandbox: Sandbox, path: Path, agent: list[str],
                 n: int = 1, workers: int = 1, mode: Mode = "proxy", only: str | None = None,
                 limits: Limits | None = None, keep: bool = True,
                 stop: threading.Event | None = None) -> Iterator[TestOutcome]:
    """Each test `n` times, `workers` rollouts at once, yielded as they finish. No more than
    `workers` are started ahead of the consumer; closing the iterator, or `stop`, starts no more
    (and `stop` ends the running ones' agents)."""
    if n < 1 or workers < 1:
        raise InvalidAssertions(f"rollouts need n >= 1 and workers >= 1, not n={n}, workers={workers}")
    suite, tests = prepare_suite(state, path, only)
    jobs = takewhile(lambda _: not (stop and stop.is_set()), [(test, r) for r in range(n) for test in tests])
    return stream(jobs, lambda job: run_test(state, stack, sandbox, path, suite, job[0], agent, mode, limits, job[1],
                                             keep, stop), workers)


def run_suite(state: StatePaths, stack: StackInfo, sandbox: Sandbox, path: Path, agent: list[str],
              mode: Mode = "proxy", only: str | None = None, limits: Limits | None = None,
              progress: Callable[[TestOutcome], None] = lambda _: None, workers: int = 1, keep: bool = False,
              stop: threading.Event | None = None) -> SuiteReport:
    """The whole suite once, reported in the suite's order whatever order the tests finish in;
    each test's environment is deleted once scored, unless `keep`. After `stop`, the tests
    that ran (those it stopped among them)."""
    return report_of(path, stream_suite(state, stack, sandbox, path, agent, workers=workers, mode=mode, only=only,
                                        limits=limits, keep=keep, stop=stop), progress)


def ray_suite(path: Path, agent: list[str], address: str, only: str | None = None, workers: int = 1,
              progress: Callable[[TestOutcome], None] = lambda _: None, **options: Any) -> SuiteReport:
    """The whole suite once over a Ray cluster, a stack per node (detour_client.ray), `workers`
    tests at once per node; reported as `run_suite` reports."""
    from detour_client import Client  # Ray only for those who ask for it
    played = Client().rollouts(path, agent, workers=workers, test=only, ray_address=address, **options)
    return report_of(path, (TestOutcome.model_validate(outcome.data) for outcome in played), progress)


def report_of(path: Path, outcomes: Iterable[TestOutcome], progress: Callable[[TestOutcome], None]) -> SuiteReport:
    """The outcomes as they come (each to `progress`), then in the suite's order."""
    suite = load_suite(path)
    order = {str(test.id): index for index, test in enumerate(suite.tests)}
    done = []
    for outcome in outcomes:
        progress(outcome)
        done.append(outcome)
    return SuiteReport(suite=suite.name or path.stem, tests=sorted(done, key=lambda o: order[o.id]))
