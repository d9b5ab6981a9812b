"""The vendors' hosted MCP endpoints, served at their real hosts and paths.

The proxy routes an MCP host (a pack's `McpSurface.hosts`) like the pack's other hosts, so
`https://api.githubcopilot.com/mcp/` reaches `/api/env/{env}/services/github/mcp/` here. Each
endpoint is the SDK's Streamable HTTP transport over the pack's server (server.py), answering
POSTs as JSON:

- sessions as the transport has them: `initialize` gets an `Mcp-Session-Id`; a later request
  without it is 400, with one this environment did not issue or a DELETE ended, 404; DELETE
  ends it. A stack runs several proxy workers and any of them may take the next request, so
  a session is nothing in memory: its id is signed with the environment's salt (any worker can
  check it) and the ids a DELETE ended are in the environment's meta. A session's POSTs go
  to the SDK's transport with that id and a server run over it, which each process keeps
  for the sessions it serves (kept.py); initialize, the GET stream and DELETE are each a
  transport and a server run of their own.
- the GET stream for the server's own messages (these servers send none: it stays open, quiet,
  until the client goes), and the legacy HTTP+SSE transport where the vendor still publishes
  it (`McpSurface.sse`: Linear's and Notion's `/sse`), the SDK's SseServerTransport. Both hold a
  connection open, so the proxy serves them from its own loopback server and streams them
  (proxy_addons/mcp_calls.py); a legacy session lives in the process that holds its stream,
  and a message POSTed to another worker is passed on to it (sse_holders.py).
- bearer auth with the tokens the environment issues: no token is 401 with
  `WWW-Authenticate` (naming the resource's metadata where the vendor has OAuth: oauth.py); a
  token it did not issue is refused too where the environment requires issued tokens, as its
  REST replica does.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

import anyio
from mcp.server.lowlevel import Server
from mcp.server.sse import SseServerTransport
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, StreamableHTTPServerTransport
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from detour_core.pack import ServicePack, resolve
from mock_services.issued_tokens import SALT_KEY, Credentials
from mock_services.mcp.kept import KeptSessions
from mock_services.mcp.oauth import oauth_router, resource_metadata
from mock_services.mcp.server import build_server
from mock_services.mcp.sse_holders import HeldStream, holder_elsewhere, pass_on
from mock_services.store import EnvironmentStore

ENDED_KEY = "mcp_ended_sessions"  # in the environment's meta: the session ids a DELETE ended
SSE_MESSAGES = "/message"         # below a legacy SSE endpoint: where its client posts


def unauthorized(error: str, description: str, metadata: str | None) -> Response:
    """RFC 6750's answer; where the vendor has OAuth, it names the resource's metadata (RFC 9728),
    where an MCP client starts its OAuth flow."""
    where = f', resource_metadata="{metadata}"' if metadata else ""
    return JSONResponse({"error": error, "error_description": description}, status_code=401, headers={
        "WWW-Authenticate": f'Bearer error="{error}", error_description="{description}"{where}'})


def _signed(salt: str, nonce: str) -> str:
    return nonce + hmac.new(salt.encode(), nonce.encode(), hashlib.sha256).hexdigest()[:32]


@dataclass(frozen=True)
class Caller:
    """Who is calling, as far as the endpoint needs: refused (the 401 to answer), or the
    environment's salt and ended sessions, which decide the session the request is in."""

    refused: Response | None
    salt: str = ""
    ended: tuple[str, ...] = ()

    def session(self, given: str | None) -> str:
        """The transport's session id: the one given where this environment issued it and it was
        not ended; else a new one, which the transport hands out at `initialize` and which
        does not match a stale one given (the transport answers that 404)."""
        if given and _signed(self.salt, given[:32]) == given and given not in self.ended:
            return given
        return _signed(self.salt, secrets.token_hex(16))


class McpEndpoint:
    """One pack's Streamable HTTP endpoint (an ASGI app)."""

    def __init__(self, pack: ServicePack, server: Server) -> None:
        self.pack = pack
        self.server = server
        self.metadata = resource_metadata(pack)
        self.kept = KeptSessions(server)

    def caller(self, request: Request) -> Caller:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return Caller(unauthorized("invalid_request", "No access token was provided in this request", self.metadata))
        store: EnvironmentStore = request.app.state.store
        with store.open(request.path_params["env_id"], service=self.pack.name) as state:
            salt, ended = state.meta(SALT_KEY) or "", tuple(state.meta(ENDED_KEY) or ())
            if not state.info.require_issued_tokens or not self.pack.credentials:
                return Caller(None, salt, ended)
            issued: Credentials = resolve(self.pack.credentials)(state)
        if token.strip() in issued.tokens.values():
            return Caller(None, salt, ended)
        return Caller(unauthorized("invalid_token", "The access token is not valid", self.metadata))

    def end(self, request: Request, session: str) -> None:
        """A DELETE of a session this environment issued: later requests in it are 404."""
        store: EnvironmentStore = request.app.state.store
        with store.open(request.path_params["env_id"], write=True) as state:
            state.set_meta(ENDED_KEY, [*(state.meta(ENDED_KEY) or []), session])

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        caller = self.caller(request)
        if caller.refused is not None:
            await caller.refused(scope, receive, send)
            return
        given = request.headers.get(MCP_SESSION_ID_HEADER)
        session = caller.session(given)
        if request.method == "POST" and session == given:  # a session's message: its kept transport
            await (await self.kept.transport(session)).handle_request(scope, receive, send)
            return
        if request.method == "DELETE" and session == given:
            self.end(request, session)
            await self.kept.end(session)
        transport = StreamableHTTPServerTransport(mcp_session_id=session, is_json_response_enabled=True)
        async with anyio.create_task_group() as running:
            await running.start(self.run, transport)
            try:
                await transport.handle_request(scope, receive, send)
            finally:
                with anyio.CancelScope(shield=True):
                    await transport.terminate()

    async def run(self, transport: StreamableHTTPServerTransport, *,
                  task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """The server over this request's transport; already initialized (the session's
        `initialize` was an earlier request's), as the SDK's stateless mode runs it."""
        async with transport.connect() as (read, write):
            task_status.started()
            await self.server.run(read, write, self.server.create_initialization_options(), stateless=True)


class LegacySse:
    """One pack's HTTP+SSE endpoint (the transport before Streamable HTTP): GET opens the
    stream, whose first event names where to POST; the SDK's SseServerTransport does both."""

    def __init__(self, pack: ServicePack, server: Server, path: str) -> None:
        self.endpoint = McpEndpoint(pack, server)
        self.transport = SseServerTransport(path + SSE_MESSAGES)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        refused = self.endpoint.caller(request).refused
        if refused is not None:
            await refused(scope, receive, send)
        elif scope["method"] == "POST":
            holder = holder_elsewhere(request)
            if holder is None:
                await self.transport.handle_post_message(scope, receive, send)
            else:  # another proxy worker holds the session's stream
                await pass_on(request, holder, send)
        else:
            held = HeldStream(request, send)
            try:
                async with self.transport.connect_sse(scope, receive, held) as (read, write):
                    server = self.endpoint.server
                    await server.run(read, write, server.create_initialization_options())
            finally:
                held.release()


def mcp_routes(pack: ServicePack) -> list[BaseRoute]:
    """A route per MCP endpoint of the pack (none where it has no MCP server): its path, and
    everything below it (GitHub's `/mcp/readonly` and toolset paths land at the same server); its
    legacy SSE endpoint and where that posts; and its OAuth routes where the vendor has them."""
    if pack.mcp is None:
        return []
    server = build_server(pack)
    endpoint = McpEndpoint(pack, server)
    prefix = f"/api/env/{{env_id}}/services/{pack.name}"
    routes: list[BaseRoute] = []
    for entry in pack.mcp.hosts:
        path = entry.partition("/")[2].strip("/")  # at a host's root (Stripe's), that path alone
        below = f"/{path}{{rest:path}}" if path else "/"
        routes.append(Route(prefix + below, endpoint, methods=["GET", "POST", "DELETE"]))
    for entry in pack.mcp.sse:
        path = "/" + entry.partition("/")[2].strip("/")
        legacy = LegacySse(pack, server, path)
        routes += [Route(prefix + path, legacy, methods=["GET"]),
                   Route(prefix + path + SSE_MESSAGES, legacy, methods=["POST"])]
    if pack.mcp.oauth:
        routes.extend(oauth_router(pack).routes)
    return routes
