"""One test of a suite played step by step over a stack's HTTP APIs: what the harness adapters
(OpenEnv, NeMo Gym, verifiers, Harbor) share. The harness decides what the agent does; detour
gives each episode its own environment from the test's seed, runs each action (a program) in a
sandbox behind the proxy against that environment, and scores the test's assertions on its diff.

The calls are the AgentDiff API's (initEnv as the test's acting user, startRun, evaluateRun with
the test's assertions as expectedOutput) and the platform API's run: the reward is the share of
assertions that pass, as `detour suite run` and the rollouts API score it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from detour_client.http import StackClient
from detour_client.rollouts import SuiteError


def find_test(suite: dict[str, Any], test_id: str) -> dict[str, Any]:
    """The suite's test by id, or one line naming the ids there are."""
    for test in suite["tests"]:
        if str(test.get("id")) == test_id:
            return test
    ids = ", ".join(str(t.get("id")) for t in suite["tests"])
    raise SuiteError(f"no test {test_id!r} in the suite (its tests: {ids})")


@dataclass
class Episode:
    """A test's environment, its run (the diff's starting point) and what its steps printed.
    `run_options` go with every step's program (backend, mode, limits)."""

    stack: StackClient
    suite: dict[str, Any]
    test_id: str
    run_options: dict[str, Any] = field(default_factory=dict)
    env_id: str | None = None
    run_id: str | None = None
    steps: int = 0

    @property
    def test(self) -> dict[str, Any]:
        return find_test(self.suite, self.test_id)

    @property
    def prompt(self) -> str:
        return str(self.test.get("prompt", ""))

    def start(self) -> Episode:
        """A fresh environment from the test's seed, as its acting user, and a run on it."""
        test = self.test
        made = self.stack._call("POST", "/initEnv", {"templateSchema": test.get("seed_template"),
                                                     "impersonateUserId": test.get("impersonate_user_id")})
        self.env_id = made["environmentId"]
        self.run_id = self.stack._call("POST", "/startRun", {"envId": self.env_id})["runId"]
        return self

    def execute(self, code: str, language: str = "python", **options: Any) -> dict[str, Any]:
        """The program in a sandbox against the episode's environment: exit code, stdout, stderr.
        `options` (limits, ...) replace the episode's `run_options` for this step."""
        if self.env_id is None:
            raise SuiteError("the episode has not started: call start() first")
        self.steps += 1
        done = self.stack.run(code, language=language, env=self.env_id, **{**self.run_options, **options})
        return {key: done.get(key) for key in ("exit_code", "stdout", "stderr")}

    def score(self) -> dict[str, Any]:
        """The test's assertions on the environment's diff since the start: passed, total, reward."""
        expected = {"assertions": self.test["assertions"], "ignore_fields": self.suite.get("ignore_fields", {})}
        result = self.stack._call("POST", "/evaluateRun", {"runId": self.run_id, "expectedOutput": expected})
        passed, total = result["score"]["passed"], result["score"]["total"]
        return {"passed": passed, "total": total, "reward": passed / total if total else 1.0}

    def close(self) -> None:
        """The environment goes (nothing of the episode stays on the stack)."""
        if self.env_id is not None:
            self.stack.delete_environment(self.env_id)
            self.env_id = None
