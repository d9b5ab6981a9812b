"""A detour suite as a gymnasium environment: `gymnasium.make("detour/Suite-v0", client=...,
suite=...)` once this module is imported.

An episode is one test. `reset()` makes its environment from the test's seed and a sandbox
(the suite's tests in turn, or `options={"test": id}`); the observation is the test's prompt.
`step(code)` runs the program in the sandbox behind the proxy; the observation is what it
printed (or its error), and the reward is how much the share of the test's assertions that
pass moved, so an episode's return is its final score in [0, 1]. The episode ends when every
assertion passes (terminated) or after `max_episode_steps` (truncated, gymnasium's TimeLimit).
`info` holds the score, each assertion's result, the program's exit code and its requests.
"""

from __future__ import annotations

import os
import string
from typing import TYPE_CHECKING, Any

import gymnasium
from gymnasium import spaces

from detour.adapters import answer_text
from detour.rl import Episode, SuiteTasks
from detour.suite import score_of
from sandbox.base import Limits

if TYPE_CHECKING:
    from detour.client import Client, Language

ENV_ID = "detour/Suite-v0"
MAX_TEXT = 1_000_000
TEXT = spaces.Text(max_length=MAX_TEXT, min_length=0, charset=string.printable)


class SuiteEnv(gymnasium.Env[str, str]):
    """Text in (a program), text out (its output): the interface language-model policies use."""

    metadata = {"render_modes": []}

    def __init__(self, client: Client, suite: str | os.PathLike, language: Language = "python",
                 backend: str | None = None, limits: Limits | None = None) -> None:
        self.tasks = SuiteTasks(client, suite)
        self.language = language
        self.backend = backend
        self.limits = limits
        self.action_space = TEXT
        self.observation_space = TEXT
        self.episode: Episode | None = None
        self.score = 0.0
        self._order = list(self.tasks.tests)
        self._played = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict]:
        """The previous episode's environment and sandbox go; the next test's are made."""
        super().reset(seed=seed)
        self._end()
        test_id = (options or {}).get("test") or self._order[self._played % len(self._order)]
        self._played += 1
        self.episode = Episode(self.tasks, str(test_id), self.language, self.backend, self.limits)
        self.score = 0.0
        return self.episode.test.prompt, {"test_id": str(test_id), "env_id": self.episode.env_id}

    def step(self, action: str) -> tuple[str, float, bool, bool, dict]:
        if self.episode is None:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        answer = self.episode.execute(action)
        checks = self.episode.assertions()
        score = score_of(checks)
        reward, self.score = score - self.score, score
        last = self.episode.executor.last
        info = {"test_id": str(self.episode.test.id), "env_id": self.episode.env_id, "score": score,
                "exit_code": answer["exit_code"], "assertions": [c.model_dump(mode="json") for c in checks],
                "requests": [r.model_dump(mode="json") for r in last.requests] if last else []}
        return answer_text(answer), reward, score == 1.0, False, info

    def _end(self) -> None:
        if self.episode is not None:
            episode, self.episode = self.episode, None
            episode.close()

    def close(self) -> None:
        self._end()


gymnasium.register(id=ENV_ID, entry_point=SuiteEnv, max_episode_steps=5)
