"""A detour suite as a NeMo Gym resources server (`pip install 'detour-client[nemo-gym]'`).

NeMo Gym's agents (its `simple_agent` and the others) drive a resources server the same way in
every rollout, all under one session cookie: `POST /seed_session` with the dataset row, each of
the model's function calls as `POST /<tool name>`, then `POST /verify` with the row and the
model's response, whose answer carries the reward. Here each session is one test played as an
`Episode` (detour_client.episode, the seam the OpenEnv adapter uses too):

- `/seed_session`: the row's `test_id` picks the test; a fresh environment from its seed, as its
  acting user (a session seeded again drops its previous environment first);
- `/execute_code` (the one tool): a program run in a sandbox behind detour's proxy against that
  environment; the answer is its exit code and what it printed;
- `/verify`: the test's assertions on the environment's diff; the reward is the share that pass,
  as `detour suite run` scores it, and the environment goes.

`rows(suite)` makes the dataset's lines (JSONL) from a suite: `python -m detour_client.nemo_gym
suite.json AGENT > data.jsonl`. The server runs as NeMo Gym runs its own (`gym env start`, an
`app.py` calling `DetourResourcesServer.run_webserver()`); the stack's URL and API key come from
its config (`stack_url`, `api_key`) or DETOUR_URL and DETOUR_API_KEY."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from nemo_gym.base_resources_server import (
    BaseResourcesServerConfig,
    BaseSeedSessionRequest,
    BaseSeedSessionResponse,
    BaseVerifyRequest,
    BaseVerifyResponse,
    SimpleResourcesServer,
)
from nemo_gym.server_utils import SESSION_ID_KEY
from pydantic import BaseModel, Field, PrivateAttr
from starlette.concurrency import run_in_threadpool

from detour_client.episode import Episode, find_test
from detour_client.http import StackClient
from detour_client.rollouts import SuiteError, read_suite


class DetourResourcesServerConfig(BaseResourcesServerConfig):
    suite: str = Field(description="The suite's JSON file: its tests are the sessions' tasks.")
    stack_url: str | None = Field(None, description="The stack's replica server; DETOUR_URL when unset.")
    api_key: str | None = Field(None, description="The stack's API key (in NeMo Gym's env.yaml); "
                                                  "DETOUR_API_KEY when unset.")
    run_options: dict[str, Any] = Field(default_factory=dict,
                                        description="What each program runs with: backend, mode, limits.")


class DetourSeedSessionRequest(BaseSeedSessionRequest):
    test_id: str


class ExecuteCodeRequest(BaseModel):
    """Run a complete program in a sandbox whose network reaches the task's services (their
    official APIs and SDKs) and nothing else; what it changes there is what the task is scored on."""

    code: str = Field(description="The whole program's source.")
    language: str = Field("python", description="python, node or bash.")


class ExecuteCodeResponse(BaseModel):
    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""


class DetourVerifyRequest(BaseVerifyRequest):
    test_id: str


class DetourVerifyResponse(BaseVerifyResponse):
    test_id: str
    passed: int
    total: int


class DetourResourcesServer(SimpleResourcesServer):
    """A suite's tests, each session one of them; the episodes live in this process. The stack's
    calls block (StackClient), so they run in Starlette's thread pool (anyio's, 40 at once), as
    NeMo Gym runs its own blocking tools, and the event loop keeps serving the other sessions."""

    config: DetourResourcesServerConfig
    _stack: StackClient = PrivateAttr()
    _suite: dict[str, Any] = PrivateAttr()
    _episodes: dict[str, Episode] = PrivateAttr(default_factory=dict)

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        self._stack = StackClient(self.config.stack_url, api_key=self.config.api_key)
        self._suite = read_suite(self.config.suite)

    def setup_webserver(self) -> FastAPI:
        app = super().setup_webserver()
        app.post("/execute_code")(self.execute_code)
        served = app.router.lifespan_context

        @asynccontextmanager
        async def lifespan(app: FastAPI) -> AsyncIterator[Any]:
            try:
                async with served(app) as state:
                    yield state
            finally:  # sessions never verified (a rollout abandoned) leave no environment behind
                for session in list(self._episodes):
                    await run_in_threadpool(self._end, session)

        app.router.lifespan_context = lifespan
        return app

    async def seed_session(self, request: Request, body: DetourSeedSessionRequest) -> BaseSeedSessionResponse:
        try:
            find_test(self._suite, body.test_id)
        except SuiteError as e:
            raise HTTPException(status_code=422, detail=str(e)) from None
        session = request.session[SESSION_ID_KEY]
        await run_in_threadpool(self._end, session)
        episode = Episode(self._stack, self._suite, body.test_id, self.config.run_options)
        self._episodes[session] = await run_in_threadpool(episode.start)
        return BaseSeedSessionResponse()

    async def execute_code(self, request: Request, body: ExecuteCodeRequest) -> ExecuteCodeResponse:
        episode = self._episode(request)
        return ExecuteCodeResponse(**await run_in_threadpool(episode.execute, body.code, body.language))

    async def verify(self, request: Request, body: DetourVerifyRequest) -> DetourVerifyResponse:
        episode = self._episode(request)
        if episode.test_id != body.test_id:
            raise HTTPException(status_code=409, detail=f"this session plays {episode.test_id!r}, not {body.test_id!r}")
        try:
            scored = await run_in_threadpool(episode.score)
        finally:
            await run_in_threadpool(self._end, request.session[SESSION_ID_KEY])
        return DetourVerifyResponse(**body.model_dump(), **scored)

    def _episode(self, request: Request) -> Episode:
        episode = self._episodes.get(request.session[SESSION_ID_KEY])
        if episode is None:
            raise HTTPException(status_code=409, detail="no episode in this session: /seed_session first")
        return episode

    def _end(self, session: str) -> None:
        episode = self._episodes.pop(session, None)
        if episode is not None:
            episode.close()


def rows(suite: str | dict[str, Any], agent: str | None = None) -> list[dict[str, Any]]:
    """The suite's tests as NeMo Gym dataset rows: the prompt as the user's input, `execute_code`
    as the one tool, the test's id for /seed_session and /verify, and `agent_ref` naming the
    agent server that plays them (what `gym` rollout collection posts each row to) when given."""
    tool = {"type": "function", "name": "execute_code",
            "description": " ".join((ExecuteCodeRequest.__doc__ or "").split()),
            "parameters": ExecuteCodeRequest.model_json_schema(), "strict": False}
    ref = {"agent_ref": {"type": "responses_api_agents", "name": agent}} if agent else {}
    return [{"responses_create_params": {"input": [{"role": "user", "content": str(test.get("prompt", ""))}],
                                         "tools": [tool]},
             "test_id": str(test["id"]), **ref} for test in read_suite(suite)["tests"]]


if __name__ == "__main__":  # python -m detour_client.nemo_gym SUITE [AGENT] > data.jsonl
    if not 2 <= len(sys.argv) <= 3:
        sys.exit("usage: python -m detour_client.nemo_gym SUITE.json [AGENT_SERVER_NAME] > rows.jsonl")
    try:
        made = rows(*sys.argv[1:])
    except SuiteError as e:
        sys.exit(f"detour_client.nemo_gym: {e}")
    for row in made:
        print(json.dumps(row))
