"""`POST /api/platform/run`: the Python API's `run`, for callers in other languages.

It lives on the replica server of a whole stack (`detour serve`), which knows its proxy;
a server without one (compose's replicas container) answers 503.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request
from pydantic import Field

from detour import background
from detour.apps import live_runs
from detour.client import Client, Language
from detour.runner import RunResult
from detour_core.strict import Strict
from sandbox.backends import Backend
from sandbox.base import Limits, Mode

router = APIRouter(prefix="/api/platform", tags=["run"])
router.include_router(live_runs.router)


class RunRequest(Strict):
    code: str = Field(description="The program's source.")
    language: Language = "python"
    filename: str | None = Field(None, description="Run the code as this file (its suffix says how: .cjs, .ts, ...).")
    env: str | None = Field(None, description="An environment's id; without one, a new environment from `template`.")
    template: str = "slack_default"
    backend: Backend = "auto"
    mode: Mode = "proxy"
    limits: Limits = Limits()
    run_id: str | None = Field(None, pattern=live_runs.RUN_ID_PATTERN, description="The caller's name for the run: "
                               "POST /api/platform/runs/{run_id}/stop ends it early.")
    stream: bool = Field(False, description="Answer NDJSON: {\"stdout\"|\"stderr\": text} as the program writes "
                                            "it, then {\"result\": ...}; a caller that goes away stops the run.")


def get_client(request: Request) -> Client:
    client: Client | None = request.app.state.run_client
    if client is None:
        raise HTTPException(503, "this server has no proxy beside it, so it runs no code: "
                                 "use the replica server of `detour serve`")
    return client


@router.post("/run", response_model=RunResult)
async def run(body: RunRequest, client: Annotated[Client, Depends(get_client)], request: Request):
    """Async, the run in a worker thread of its own (live_runs.in_thread): as many sandboxes live
    at once as are posted, none waiting for a place in a fixed pool."""
    await live_runs.in_thread(lambda: _arrived(client, body.env))
    return await live_runs.answer(request, body.run_id, body.stream, lambda control: client.run(
        body.code, language=body.language, env=body.env, template=body.template, backend=body.backend,
        mode=body.mode, limits=body.limits, filename=body.filename, control=control))


def _arrived(client: Client, env: str | None) -> None:
    """A use (a background stack's idle time starts again), and a 404 before any stream starts."""
    background.touch(client.state)
    if env is not None:
        client.environments.get(env)
