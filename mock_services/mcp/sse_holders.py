"""Which process holds a legacy SSE session's stream, so that its messages reach it.

The legacy HTTP+SSE transport keeps a session in the memory of the process that serves its GET
stream (the SDK's SseServerTransport); the client then POSTs each message to the endpoint the
stream named. A stack runs several proxy workers and the kernel hands each new connection to
any of them, so a POST may land in a process that does not hold the stream. The holder's
loopback address (the server the stream's ASGI scope came in on) is kept in the environment's
meta under the session's id while the stream lasts; a process that takes a POST for a session
another one holds passes it on to that address, and the answer back. Only addresses detour
wrote are ever reached: the client names a session, never where it lives.
"""

from __future__ import annotations

import re

import httpx
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Message, Scope, Send

from mock_services.store import EnvironmentStore

HOLDERS_KEY = "mcp_sse_holders"  # in the environment's meta: session id (hex) -> "host:port" of its stream
ENDPOINT_EVENT = re.compile(rb"session_id=([0-9a-f]{32})")  # in the stream's first event, the SDK's endpoint
FORWARDED = ("authorization", "content-type", "accept")


def address(scope: Scope) -> str:
    """Where this process was reached: the loopback server the request came in on."""
    host, port = scope["server"]
    return f"{host}:{port}"


def _update(store: EnvironmentStore, env_id: str, session: str, holder: str | None) -> None:
    with store.open(env_id, write=True) as state:
        holders = {k: v for k, v in (state.meta(HOLDERS_KEY) or {}).items() if k != session}
        state.set_meta(HOLDERS_KEY, holders | ({session: holder} if holder else {}))


class HeldStream:
    """The `send` of a legacy SSE stream: notes this process as the session's holder when the
    stream names its endpoint (before the client can post to it), and forgets it at the end."""

    def __init__(self, request: Request, send: Send) -> None:
        self.store: EnvironmentStore = request.app.state.store
        self.env_id = request.path_params["env_id"]
        self.address = address(request.scope)
        self.send = send
        self.session: str | None = None

    async def __call__(self, message: Message) -> None:
        if self.session is None and message["type"] == "http.response.body":
            found = ENDPOINT_EVENT.search(message.get("body", b""))
            if found:
                self.session = found[1].decode()
                _update(self.store, self.env_id, self.session, self.address)
        await self.send(message)

    def release(self) -> None:
        if self.session is not None:
            _update(self.store, self.env_id, self.session, None)


def holder_elsewhere(request: Request) -> str | None:
    """The address of the process holding the stream of the session a POST names, where that is
    not this process (None: this one holds it, or no stream does and the SDK answers so)."""
    store: EnvironmentStore = request.app.state.store
    with store.open(request.path_params["env_id"]) as state:
        holder = (state.meta(HOLDERS_KEY) or {}).get(request.query_params.get("session_id", ""))
    return holder if holder and holder != address(request.scope) else None


async def pass_on(request: Request, holder: str, send: Send) -> None:
    """The POST as it came, to the holder's loopback server; its answer as the holder gave it
    (a holder gone since is a session not found, as the SDK says it)."""
    headers = {name: request.headers[name] for name in FORWARDED if name in request.headers}
    try:
        async with httpx.AsyncClient(trust_env=False) as http:
            got = await http.post(f"http://{holder}{request.url.path}?{request.url.query}",
                                  content=await request.body(), headers=headers)
    except httpx.TransportError:
        response = Response("Could not find session", status_code=404)
    else:
        response = Response(got.content, status_code=got.status_code, media_type=got.headers.get("content-type"))
    await response(request.scope, request.receive, send)
