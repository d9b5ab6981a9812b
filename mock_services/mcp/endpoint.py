"""The vendors' hosted MCP endpoints, served at their real hosts and paths.

The proxy routes an MCP host (a pack's `McpSurface.hosts`) like the pack's other hosts, so
`https://api.githubcopilot.com/mcp/` reaches `/api/env/{env}/services/github/mcp/` here. Each
endpoint is the SDK's Streamable HTTP transport over the pack's server (server.py):

- stateless, each POST its own session, answered as JSON: a stack runs several proxy workers
  and any of them may take the next request, so nothing is kept between requests in memory;
  a GET stream (server-initiated messages, which these servers never send) is refused with
  405, as the transport allows.
- bearer auth with the tokens the environment issues: no token is 401 with
  `WWW-Authenticate` (naming the resource's metadata where the vendor has OAuth: oauth.py); a
  token it did not issue is refused too where the environment requires issued tokens, as its
  REST replica does.
"""

from __future__ import annotations

from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from detour_core.pack import ServicePack, resolve
from detour_core.registry import packs
from mock_services.issued_tokens import Credentials
from mock_services.mcp.oauth import oauth_router, resource_metadata
from mock_services.mcp.server import build_server
from mock_services.store import EnvironmentStore


def unauthorized(error: str, description: str, metadata: str | None) -> Response:
    """RFC 6750's answer; where the vendor has OAuth, it names the resource's metadata (RFC 9728),
    where an MCP client starts its OAuth flow."""
    where = f', resource_metadata="{metadata}"' if metadata else ""
    return JSONResponse({"error": error, "error_description": description}, status_code=401, headers={
        "WWW-Authenticate": f'Bearer error="{error}", error_description="{description}"{where}'})


class McpEndpoint:
    """One pack's MCP endpoint (an ASGI app)."""

    def __init__(self, pack: ServicePack) -> None:
        self.pack = pack
        self.server = build_server(pack)
        self.metadata = resource_metadata(pack)

    def refused(self, request: Request) -> Response | None:
        """Why the caller may not call (401), or None."""
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return unauthorized("invalid_request", "No access token was provided in this request", self.metadata)
        store: EnvironmentStore = request.app.state.store
        with store.open(request.path_params["env_id"], service=self.pack.name) as state:
            if not state.info.require_issued_tokens or not self.pack.credentials:
                return None
            issued: Credentials = resolve(self.pack.credentials)(state)
        if token.strip() in issued.tokens.values():
            return None
        return unauthorized("invalid_token", "The access token is not valid", self.metadata)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        if request.method != "POST":
            answer: Response = Response(status_code=405, headers={"Allow": "POST"})
        else:
            answer = self.refused(request)
        if answer is not None:
            await answer(scope, receive, send)
            return
        manager = StreamableHTTPSessionManager(self.server, stateless=True, json_response=True)
        async with manager.run():
            await manager.handle_request(scope, receive, send)


def mcp_routes() -> list[BaseRoute]:
    """A route per MCP endpoint of every pack that has one: its path, and everything below it
    (GitHub's `/mcp/readonly` and toolset paths land at the same server); and its OAuth routes
    where the vendor has them."""
    routes: list[BaseRoute] = []
    for pack in packs():
        if pack.mcp is None:
            continue
        endpoint = McpEndpoint(pack)
        for entry in pack.mcp.hosts:
            path = entry.partition("/")[2].strip("/")  # at a host's root (Stripe's), that path alone
            below = f"/{path}{{rest:path}}" if path else "/"
            routes.append(Route(f"/api/env/{{env_id}}/services/{pack.name}{below}", endpoint,
                                methods=["GET", "POST", "DELETE"]))
        if pack.mcp.oauth:
            routes.extend(oauth_router(pack).routes)
    return routes
