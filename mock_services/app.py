"""The replica app: every registered service pack's routes over one environment store.

The proxy loads this app into its own process to answer routed requests; the stack's server
(detour.apps.server) mounts the platform API, AgentDiff's API and the live view beside it.

A pack's routes are built on the first request below its path prefix, not when the app is made:
importing and building all 32 packs (their routers, their MCP servers, the GraphQL schemas
they warm up) cost about 2 s of CPU, paid by every stack start (every `detour serve`, embedded
stack, proxy worker and Ray node), while a run calls a few services.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from typing import Any

import anyio.to_thread
from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse
from starlette._utils import get_route_path
from starlette.datastructures import URLPath
from starlette.routing import BaseRoute, Match, NoMatchFound
from starlette.types import Receive, Scope, Send

from detour_core.paths import StatePaths
from detour_core.pack import ServicePack, resolve
from detour_core.registry import InvalidServicePack, added_packs, packs, parse_replica_path
from detour_core.errors import DetourError, EnvironmentExists, EnvironmentNotFound
from mock_services.store import EnvironmentStore

ERROR_STATUS: dict[type[DetourError], int] = {EnvironmentNotFound: 404, EnvironmentExists: 409}
PACK_KEY = "detour.pack"  # in a request's scope: the pack whose path it is below


async def detour_error_handler(_: Request, error: DetourError) -> JSONResponse:
    """The one place the environment layer's errors become HTTP errors (400 unless listed)."""
    status = next((ERROR_STATUS[kind] for kind in type(error).__mro__ if kind in ERROR_STATUS), 400)
    return JSONResponse({"detail": str(error)}, status_code=status)


def pack_routes(pack: ServicePack) -> APIRouter:
    """Everything the pack serves: its vendor's MCP endpoints (mock_services/mcp), then its router."""
    from mock_services.mcp.endpoint import mcp_routes  # the MCP SDK's import alone is ~0.4 s of CPU
    routes = APIRouter(routes=mcp_routes(pack))
    routes.include_router(resolve(pack.router))
    return routes


class LazyPack:
    """A pack's routes, built once, on its first request: in a worker thread so other requests go
    on meanwhile; a lock makes concurrent first requests (from either event loop the proxy runs
    the app in) wait for one build."""

    def __init__(self, pack: ServicePack) -> None:
        self.pack = pack
        self.routes: APIRouter | None = None
        self.building = threading.Lock()

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        routes = self.routes if self.routes is not None else await anyio.to_thread.run_sync(self.build)
        await routes(scope, receive, send)

    def build(self) -> APIRouter:
        with self.building:
            if self.routes is None:
                self.routes = pack_routes(self.pack)
                if self.pack.warm_up:  # what it builds ahead (Linear's schema: ~0.5 s), off the request's way
                    threading.Thread(target=resolve(self.pack.warm_up), name=f"warm-up {self.pack.name}",
                                     daemon=True).start()
            return self.routes


class Packs(BaseRoute):
    """The app's route for every path below `/api/env/{env}/services/{pack}` (the registry's
    replica path): no other route lies there, so handing such a request to its pack's own routes
    (which match, answer 405, redirect a slash or answer 404 as the app would) serves it exactly
    as a table of every pack's routes did."""

    def __init__(self, packs: tuple[ServicePack, ...]) -> None:
        self.by_name = {pack.name: LazyPack(pack) for pack in packs}

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        parsed = parse_replica_path(get_route_path(scope)) if scope["type"] in ("http", "websocket") else None
        return (Match.FULL, {PACK_KEY: parsed[1]}) if parsed and parsed[1] in self.by_name else (Match.NONE, {})

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.by_name[scope[PACK_KEY]].handle(scope, receive, send)

    def url_path_for(self, name: str, /, **path_params: Any) -> URLPath:
        """Built packs' routes by name; none before (the app's `url_for` goes on to its other routes)."""
        for lazy in self.by_name.values():
            with contextlib.suppress(NoMatchFound):
                if lazy.routes is not None:
                    return lazy.routes.url_path_for(name, **path_params)
        raise NoMatchFound(name, path_params)


def check_router_module(pack: ServicePack) -> None:
    """A user's pack's router module imported at the start: a mistyped reference or a module that
    does not import fails the server's start in one line, not the pack's first request with a 500
    (detour's own packs are held by their tests)."""
    module = pack.router.partition(":")[0]
    try:
        importlib.import_module(module)
    except Exception as e:  # the user's module may raise anything while it imports
        raise InvalidServicePack(f"service pack {pack.name!r}: its router {pack.router!r} cannot be imported: "
                                 f"{type(e).__name__}: {e}") from None


def create_replica_app(state: StatePaths | None = None) -> FastAPI:
    state = (state or StatePaths.default()).ensure()
    # No OpenTelemetry: FastAPI otherwise asks the global providers on every request (~3% of the
    # replica server's loop); nothing in a stack configures them.
    app = FastAPI(title="detour replicas", docs_url=None, redoc_url=None,
                  telemetry={"tracing": False, "metrics": False, "logs": False})
    app.state.store = EnvironmentStore(state)
    app.state.inline_calls = False  # the proxy sets it when it runs this app in its own process
    app.add_exception_handler(DetourError, detour_error_handler)
    for pack in added_packs():
        check_router_module(pack)
    app.router.routes.append(Packs(packs()))
    return app
