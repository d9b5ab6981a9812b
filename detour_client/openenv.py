"""A detour suite as an OpenEnv environment (`pip install openenv-core` beside detour-client):
reset/step/state over OpenEnv's own HTTP and WebSocket server, and its `EnvClient` on the
trainer's side.

`reset(test_id=...)` (or `seed=`, the test at that index) starts an episode: a fresh environment
from the test's seed; its observation holds the prompt. A step's action is a program, run in a
sandbox behind detour's proxy against that environment; its observation holds what it printed.
The step whose action says `submit` ends the episode: the reward is the share of the test's
assertions that pass on the environment's diff, and the environment goes.

    app = make_app(StackClient(url, api_key=key), suite)      # uvicorn serves it
    async with DetourEnv(base_url=server_url) as env:          # the trainer's side
        await env.reset(test_id="acme_1")
        await env.step(DetourAction(code=program))
        reward = (await env.step(DetourAction(submit=True))).reward
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from openenv.core import EnvClient
from openenv.core.client_types import StepResult
from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

from detour_client.episode import Episode
from detour_client.http import StackClient


class DetourAction(Action):
    code: str = Field("", description="A complete program, run in the episode's sandbox against its environment.")
    language: str = Field("python", description="The program's language, as `detour run` takes it.")
    submit: bool = Field(False, description="End the episode: its assertions are scored, its environment removed.")


class DetourObservation(Observation):
    test_id: str = ""
    prompt: str = ""
    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    passed: int | None = Field(None, description="Assertions passed, once submitted.")
    total: int | None = Field(None, description="The test's assertions, once submitted.")


class DetourState(State):
    test_id: str | None = None
    env_id: str | None = None


class DetourEnvironment(Environment[DetourAction, DetourObservation, DetourState]):
    """One session's episodes, one at a time; each session its own (OpenEnv's factory mode)."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, stack: StackClient, suite: dict[str, Any], **run_options: Any) -> None:
        super().__init__()
        self.stack, self.suite, self.run_options = stack, suite, run_options
        self.episode: Episode | None = None

    def reset(self, seed: int | None = None, episode_id: str | None = None, test_id: str | None = None,
              **kwargs: Any) -> DetourObservation:
        self.close()
        tests = self.suite["tests"]
        test_id = test_id or str(tests[(seed or 0) % len(tests)]["id"])
        self.episode = Episode(self.stack, self.suite, test_id, self.run_options).start()
        return DetourObservation(test_id=test_id, prompt=self.episode.prompt)

    def step(self, action: DetourAction, timeout_s: float | None = None, **kwargs: Any) -> DetourObservation:
        if self.episode is None:
            raise RuntimeError("no episode under way: reset first")
        seen = DetourObservation(test_id=self.episode.test_id)
        if action.code:
            seen = seen.model_copy(update=self.episode.execute(action.code, action.language))
        if action.submit:
            scored = self.episode.score()
            self.close()
            seen = seen.model_copy(update={"done": True, "reward": scored["reward"], "passed": scored["passed"],
                                           "total": scored["total"]})
        return seen

    @property
    def state(self) -> DetourState:
        episode = self.episode
        return DetourState(episode_id=episode and episode.run_id, step_count=episode.steps if episode else 0,
                           test_id=episode and episode.test_id, env_id=episode and episode.env_id)

    def close(self) -> None:
        if self.episode is not None:
            self.episode.close()
            self.episode = None


def make_app(stack: StackClient, suite: dict[str, Any], sessions: int = 8, **run_options: Any) -> FastAPI:
    """OpenEnv's server over the suite: `sessions` WebSocket sessions at once, each its own episode."""
    return create_app(lambda: DetourEnvironment(stack, suite, **run_options), DetourAction, DetourObservation,
                      env_name="detour", max_concurrent_envs=sessions)


class DetourEnv(EnvClient[DetourAction, DetourObservation, DetourState]):
    """OpenEnv's client for a detour suite's server (a WebSocket session of its own)."""

    def _step_payload(self, action: DetourAction) -> dict[str, Any]:
        return action.model_dump(exclude={"metadata"})

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[DetourObservation]:
        seen = DetourObservation(**{**payload.get("observation", {}), "done": payload.get("done", False),
                                    "reward": payload.get("reward")})
        return StepResult(observation=seen, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> DetourState:
        return DetourState(**payload)
