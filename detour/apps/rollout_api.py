"""`POST /api/platform/rollouts`: one rollout of a suite's test, scored. The unit that
detour_client's drivers (a thread pool over one stack, or Ray over a stack per node) ask a
stack for: the client sends the suite as data and reads the outcome back, over HTTP alone.

On the replica server of a whole stack (`detour serve`), as the run API: it needs the proxy.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from pydantic import Field

from detour import background
from detour.apps import live_runs
from detour.apps.run_api import get_client
from detour.client import Client
from detour.suite import TestOutcome, run_test
from detour_client.rollouts import agent_argv
from detour_core.strict import Strict
from mock_services.assertions import suite_of
from sandbox.backends import Backend
from sandbox.base import Limits, Mode

router = APIRouter(prefix="/api/platform", tags=["rollouts"])


class RolloutRequest(Strict):
    suite: dict[str, Any] = Field(description="The suite itself (AgentDiff's shape); its tests start from the "
                                              "stack's templates.")
    test: str = Field(description="The id of the test to play.")
    agent: list[str] = Field(min_length=1, description="The agent's command line; files it names are on the "
                                                       "stack's machine.")
    rollout: int = Field(0, ge=0, description="Which of the test's rollouts this is, echoed in the outcome.")
    backend: Backend = "auto"
    mode: Mode = "proxy"
    limits: Limits = Limits()
    keep: bool = Field(False, description="Keep the environment once scored (default: deleted).")
    run_id: str | None = Field(None, pattern=live_runs.RUN_ID_PATTERN, description="The caller's name for the "
                               "rollout: POST /api/platform/runs/{run_id}/stop ends its agent early.")


@router.post("/rollouts")
async def rollout(body: RolloutRequest, client: Annotated[Client, Depends(get_client)],
                  request: Request) -> TestOutcome:
    """The outcome once the rollout is scored and (unless `keep`) its environment gone; played in
    a worker thread of its own, as `run`: no fixed pool caps how many are live at once. A stop
    (by its `run_id`), or a caller that hangs up, ends the agent as "interrupted": the rollout
    does not pass, and its environment goes as any other's."""
    with live_runs.registered(request.app, body.run_id) as control:
        return await live_runs.while_connected(request, control.stop, lambda: _play(body, client, control.stop))


def _play(body: RolloutRequest, client: Client, stop: threading.Event) -> TestOutcome:
    background.touch(client.state)  # a use: a background stack's idle time starts again
    suite = suite_of(body.suite, Path(str(body.suite.get("name") or "the posted suite")))
    argv = agent_argv(body.agent)
    # A posted suite has no seeds folder beside it: run_test looks for one where none is.
    nowhere = client.state.home / "posted-suite" / "suite.json"
    return run_test(client.state, client.stack, client.sandbox(body.backend, tuple(argv)), nowhere, suite,
                    suite.test(body.test), argv, mode=body.mode, limits=body.limits, rollout=body.rollout,
                    keep=body.keep, stop=stop)
