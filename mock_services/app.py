"""The replica app: every registered service pack's router over one environment store.

The proxy loads this app into its own process to answer routed requests; the stack's server
(detour.apps.server) mounts the platform API, AgentDiff's API and the live view beside it.
"""

from __future__ import annotations

import threading

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse

from detour_core.paths import StatePaths
from detour_core.pack import ServicePack, resolve
from detour_core.registry import packs
from detour_core.errors import DetourError, EnvironmentExists, EnvironmentNotFound
from mock_services.mcp.endpoint import mcp_routes
from mock_services.store import EnvironmentStore

ERROR_STATUS: dict[type[DetourError], int] = {EnvironmentNotFound: 404, EnvironmentExists: 409}


async def detour_error_handler(_: Request, error: DetourError) -> JSONResponse:
    """The one place the environment layer's errors become HTTP errors (400 unless listed)."""
    status = next((ERROR_STATUS[kind] for kind in type(error).__mro__ if kind in ERROR_STATUS), 400)
    return JSONResponse({"detail": str(error)}, status_code=status)


def pack_router(pack: ServicePack) -> APIRouter:
    return resolve(pack.router)


def warm_up() -> None:
    """What the packs build ahead (Linear's schema: about half a second), in the background,
    so a server takes requests at once and the first call does not pay for it."""
    for hook in [p.warm_up for p in packs() if p.warm_up]:
        threading.Thread(target=resolve(hook), name=f"warm-up {hook}", daemon=True).start()


def create_replica_app(state: StatePaths | None = None) -> FastAPI:
    state = (state or StatePaths.default()).ensure()
    app = FastAPI(title="detour replicas", docs_url=None, redoc_url=None)
    app.state.store = EnvironmentStore(state)
    app.state.inline_calls = False  # the proxy sets it when it runs this app in its own process
    app.add_exception_handler(DetourError, detour_error_handler)
    app.router.routes.extend(mcp_routes())  # the vendors' hosted MCP servers (mock_services/mcp)
    for pack in packs():
        app.include_router(pack_router(pack))
    return app
