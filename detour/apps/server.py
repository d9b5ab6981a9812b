"""The stack's server: the replica app (mock_services.app) with the faces mounted beside it:
the platform API, AgentDiff's API, the live view, the run API and the rollouts API (which need the
stack's proxy, and so sit on top).

`detour serve` runs `uvicorn detour.apps.server:create_stack_app --factory`; the stack passes
its own description in the environment, so that runs go through its proxy.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from detour.apps import platform, rollout_api, run_api
from detour.apps.agentdiff.router import router as agentdiff_router
from detour.apps.auth import ApiKeyDep
from detour.apps.live_view import router as live_view
from detour.client import Client
from detour.stack import StackInfo
from detour_core.credentials import api_key
from detour_core.paths import API_AUTH_VARIABLE, STACK_VARIABLE, StatePaths
from mock_services.app import create_replica_app
from mock_services.store import EnvironmentStore

EXPIRY_SWEEP_S = 30.0


async def sweep_expired(store: EnvironmentStore) -> None:
    """Environments past their time to live leave the disk even if nobody touches them again."""
    while True:
        await asyncio.to_thread(store.expire)
        await asyncio.sleep(EXPIRY_SWEEP_S)


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    sweeper = asyncio.create_task(sweep_expired(app.state.store))
    yield
    sweeper.cancel()


def create_app(state: StatePaths | None = None, api_auth: bool | None = None,
               run_client: Client | None = None) -> FastAPI:
    """`api_auth` None: as the stack that started this server says (on unless `--no-auth`)."""
    state = (state or StatePaths.default()).ensure()
    app = create_replica_app(state)
    app.router.lifespan_context = lifespan
    if api_auth is None:
        api_auth = os.environ.get(API_AUTH_VARIABLE, "on") != "off"
    app.state.api_key = api_key(state) if api_auth else None
    app.state.run_client = run_client
    app.include_router(platform.health_router)
    app.include_router(platform.router, dependencies=[ApiKeyDep])
    app.include_router(agentdiff_router, dependencies=[ApiKeyDep])
    app.include_router(live_view.page_router)
    app.include_router(live_view.router, dependencies=[ApiKeyDep])
    app.include_router(run_api.router, dependencies=[ApiKeyDep])
    app.include_router(rollout_api.router, dependencies=[ApiKeyDep])
    return app


def create_stack_app() -> FastAPI:
    """The server a stack starts: its description (in the environment) lets runs use its proxy."""
    state = StatePaths.default().ensure()
    described = os.environ.get(STACK_VARIABLE)
    client = Client(home=state.home, stack=StackInfo.model_validate_json(described)) if described else None
    return create_app(state, run_client=client)
