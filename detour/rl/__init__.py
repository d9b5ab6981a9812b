"""detour's suites as RL environments: a gymnasium `Env` (detour.rl.gymnasium) and a
verifiers environment (detour.rl.verifiers), each imported only when used (`pip install
'detour[rl]'`). Both play one test per episode in an `Episode`: its own environment from the
test's seed and its own sandbox, made for the episode and removed with it; the reward is the
share of the test's assertions that pass."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from detour.suite import prepare_suite, score_of
from mock_services.assertions import AssertionResult, Suite, SuiteTest, evaluate_environment
from sandbox.base import Limits

if TYPE_CHECKING:
    from detour.client import Client, Executor, Language


class SuiteTasks:
    """A suite's tests, each checked before any runs (seeds and entities), by id in the suite's order."""

    def __init__(self, client: Client, suite: str | os.PathLike) -> None:
        self.client = client
        self.path = Path(suite).resolve()
        self.suite: Suite
        self.suite, tests = prepare_suite(client.state, self.path)
        self.tests: dict[str, SuiteTest] = {str(test.id): test for test in tests}

    @property
    def name(self) -> str:
        return self.suite.name or self.path.stem

    def test(self, test_id: str) -> SuiteTest:
        return self.suite.test(test_id)


class Episode:
    """One test played once: an environment from its seed, acting as the test's user, and an
    executor (a sandbox behind the proxy whose workspace lasts the episode)."""

    def __init__(self, tasks: SuiteTasks, test_id: str, language: Language = "python",
                 backend: str | None = None, limits: Limits | None = None) -> None:
        self.tasks = tasks
        self.test = tasks.test(test_id)
        store = tasks.client.environments.store
        self.env_id = store.create(self.test.seed_template, acting_user=self.test.impersonate_user_id,
                                   template_dirs=(tasks.path.parent / "seeds",)).env_id
        try:
            self.executor: Executor = tasks.client.executor(language, env=self.env_id, backend=backend, limits=limits)
        except BaseException:
            store.delete(self.env_id)
            raise

    def execute(self, code: str) -> dict[str, Any]:
        """AgentDiff's executor answer (status, stdout, stderr, exit_code) for one program."""
        return self.executor.execute(code)

    def assertions(self) -> list[AssertionResult]:
        spec = self.test.spec(self.tasks.suite.ignore_fields)
        return evaluate_environment(spec, self.tasks.client.environments.store, self.env_id)

    def score(self) -> float:
        return score_of(self.assertions())

    def close(self) -> None:
        """The sandbox's workspace and the environment go; the audit records stay."""
        try:
            self.executor.close()
        finally:
            self.tasks.client.environments.delete(self.env_id)
