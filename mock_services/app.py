"""The replica server: one FastAPI app with a router per service plus the platform API.

Run with `uvicorn mock_services.app:create_app --factory`; state lives under $DETOUR_HOME.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from detour.errors import DetourError
from detour.credentials import api_key
from detour.paths import API_AUTH_VARIABLE, StatePaths
from mock_services import platform
from mock_services.agentdiff.router import router as agentdiff_router
from mock_services.deps import ApiKeyDep
from mock_services.live_view import router as live_view
from mock_services.linear.router import router as linear_router
from mock_services.linear.router import schema as linear_schema
from mock_services.slack.router import router as slack_router
from mock_services.store import EnvironmentStore


EXPIRY_SWEEP_S = 30.0


async def sweep_expired(store: EnvironmentStore) -> None:
    """Environments past their time to live leave the disk even if nobody touches them again."""
    while True:
        await asyncio.to_thread(store.expire)
        await asyncio.sleep(EXPIRY_SWEEP_S)


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Build Linear's schema (about half a second: it is the whole of Linear's API) while the server starts
    taking requests, rather than inside the first Linear request."""
    threading.Thread(target=linear_schema, name="linear-schema", daemon=True).start()
    sweeper = asyncio.create_task(sweep_expired(app.state.store))
    yield
    sweeper.cancel()


def create_app(state: StatePaths | None = None, api_auth: bool | None = None) -> FastAPI:
    """`api_auth` None: as the stack that started this server says (on unless `--no-auth`)."""
    state = (state or StatePaths.default()).ensure()
    app = FastAPI(title="detour replicas", docs_url=None, redoc_url=None, lifespan=lifespan)
    app.state.store = EnvironmentStore(state)
    app.state.inline_calls = False  # the proxy sets it when it runs this app in its own process
    if api_auth is None:
        api_auth = os.environ.get(API_AUTH_VARIABLE, "on") != "off"
    app.state.api_key = api_key(state) if api_auth else None
    app.add_exception_handler(DetourError, platform.detour_error_handler)
    app.include_router(platform.health_router)
    app.include_router(platform.router, dependencies=[ApiKeyDep])
    app.include_router(agentdiff_router, dependencies=[ApiKeyDep])
    app.include_router(live_view.page_router)
    app.include_router(live_view.router, dependencies=[ApiKeyDep])
    app.include_router(slack_router)
    app.include_router(linear_router)
    return app
