"""A detour suite as a verifiers environment (verifiers' classic API: `import verifiers as vf`),
for `vf-eval`-style evaluation and the trainers built on it.

Each of the suite's tests is a row of the dataset (its prompt; `info.test_id`). Each rollout
gets its own environment from the test's seed and its own sandbox (`setup_state`); the model
has one tool, `execute_code`, that runs a program there, behind detour's proxy; when the rollout
ends, its assertions are read and the environment and sandbox removed (a cleanup, which
verifiers runs before scoring), and the rubric's reward is the share of them that pass.

    env = load_environment(client, "suite.json")          # a detour.Client, a suite file
    env.evaluate_sync(client=vf.ClientConfig(api_base_url=..., api_key_var=...), model=...)
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any

import verifiers as vf
from datasets import Dataset

from detour.adapters import answer_text
from detour.rl import Episode, SuiteTasks
from detour.suite import score_of
from sandbox.base import Limits

if TYPE_CHECKING:
    from detour.client import Client, Language

SYSTEM_PROMPT = ("You act in a test copy of a service's API through the execute_code tool: each call runs "
                 "a complete program in a sandbox that reaches the service and nothing else. Files it "
                 "writes stay for the next call. Stop calling it when the task is done.")


class DetourSuiteEnv(vf.StatefulToolEnv):
    """verifiers' StatefulToolEnv over detour: the tool's hidden argument names the rollout's episode."""

    def __init__(self, client: Client, suite: str | os.PathLike, language: Language = "python",
                 backend: str | None = None, limits: Limits | None = None, max_turns: int = 5, **kwargs: Any) -> None:
        self.tasks = SuiteTasks(client, suite)
        self.language = language
        self.backend = backend
        self.limits = limits
        self.episodes: dict[str, Episode] = {}
        rows = [{"question": test.prompt, "answer": "", "info": {"test_id": test_id}}
                for test_id, test in self.tasks.tests.items()]
        rubric = vf.Rubric(funcs=[assertions_passed], weights=[1.0])
        super().__init__(dataset=Dataset.from_list(rows), system_prompt=SYSTEM_PROMPT, rubric=rubric,
                         max_turns=max_turns, **kwargs)
        self.add_tool(self.execute_code, args_to_skip=["episode"])

    async def execute_code(self, code: str, episode: str) -> str:
        """Run a complete program in the sandbox and return what it printed, or its error.

        Args:
            code: The complete program to run; files it writes stay for the next call.
        """
        return answer_text(await asyncio.to_thread(self.episodes[episode].execute, code))

    async def setup_state(self, state: vf.State, **kwargs: Any) -> vf.State:
        test_id = str(state["info"]["test_id"])
        episode = await asyncio.to_thread(Episode, self.tasks, test_id, self.language, self.backend, self.limits)
        self.episodes[episode.env_id] = episode
        state["detour_env"] = episode.env_id
        return await super().setup_state(state) or state

    def update_tool_args(self, tool_name: str, tool_args: dict, messages: vf.Messages, state: vf.State,
                         **kwargs: Any) -> dict:
        return {**tool_args, "episode": state["detour_env"]} if tool_name == "execute_code" else tool_args

    @vf.cleanup
    async def score_and_remove(self, state: vf.State) -> None:
        """The assertions are read while the environment exists; then it and its sandbox go."""
        episode = self.episodes.pop(state.get("detour_env", ""), None)
        if episode is None:
            return
        try:
            checks = await asyncio.to_thread(episode.assertions)
            state["detour_assertions"] = [c.model_dump(mode="json") for c in checks]
            state["detour_score"] = score_of(checks)
        finally:
            await asyncio.to_thread(episode.close)


def assertions_passed(state: vf.State) -> float:
    """The reward: the share of the test's assertions that pass (0 when the rollout never ran)."""
    return float(state.get("detour_score", 0.0))


def load_environment(client: Client, suite: str | os.PathLike, **kwargs: Any) -> DetourSuiteEnv:
    """verifiers' entry point: the suite's tests as the dataset, one detour episode per rollout."""
    return DetourSuiteEnv(client, suite, **kwargs)
