"""Answer routed requests inside the proxy process, from the replica app itself.

Routing points a flow at the replica server. Without this addon, mitmproxy then opens an
HTTP connection to it and uvicorn parses the request a second time; that hop costs about as
much CPU as the replica's own work. With it, the flow goes to the same FastAPI app, loaded in
this process, through mitmproxy's ASGI bridge. The replica server keeps running for the
platform API, AgentDiff's API and the live view, on the same state. `make bench` measures
both ways.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import socket
import threading
import urllib.parse
from concurrent.futures import Future

from mitmproxy import ctx, http
from mitmproxy.addons import asgiapp

from proxy_addons.mcp_calls import STREAM_KEY
from proxy_addons.verdict import METADATA_KEY, PERMITTED


class AsgiScope:
    """mitmproxy's ASGI bridge quotes the request's path a second time (`%40` reaches the app
    as `%2540`) and unquotes its query (`q=a%26b` arrives as two parameters). ASGI wants the
    path decoded and the query as sent: this puts both right before the app sees them."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            raw = scope["raw_path"] if isinstance(scope["raw_path"], str) else scope["raw_path"].decode()
            path, _, query = raw.partition("?")
            scope = {**scope, "path": urllib.parse.unquote(path), "raw_path": path.encode(),
                     "query_string": query.encode()}
        await self.app(scope, receive, send)


@functools.cache
def replica_app() -> Future:
    """Loaded in a thread once the proxy listens: the first routed request waits for it, later
    ones find it ready. Imported here, so a proxy that answers no request itself never loads it;
    one app a process, shared with the fast path (fast_path.py). Once it is loaded, the process's
    objects are frozen out of the garbage collector's reach: a full collection then takes ~35 ms
    instead of ~140 ms (the app and mitmproxy are ~170,000 objects), once every few thousand calls."""
    loaded: Future = Future()

    def load() -> None:
        try:
            from mock_services.app import create_replica_app
            app = create_replica_app()
            app.state.inline_calls = True  # see mock_services.deps.run_call
            gc.freeze()  # what is loaded by now lives as long as the process: no full collection scans it again
            loaded.set_result(AsgiScope(app))
        except BaseException as e:
            if not loaded.done():
                loaded.set_exception(e)
            raise
    threading.Thread(target=load, name="replica-app", daemon=True).start()
    return loaded


def is_websocket(flow: http.HTTPFlow) -> bool:
    return flow.request.headers.get("upgrade", "").lower() == "websocket"


def serve_websockets(app) -> tuple[str, int]:
    """The replica app under uvicorn on a loopback port of this process, in a thread of its own:
    mitmproxy's ASGI bridge answers HTTP only, and whole, so a WebSocket (Slack's Socket Mode) and
    a stream that stays open (an MCP server's event stream) go there, and mitmproxy relays them as
    it relays any WebSocket or stream. Off the main thread uvicorn
    leaves the process's signals to mitmproxy. The port listens before this returns."""
    import uvicorn
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    server = uvicorn.Server(uvicorn.Config(app, lifespan="off", log_level="warning", access_log=False))
    threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[listener])), name="replica-websockets",
                     daemon=True).start()
    return listener.getsockname()


class InProcessReplicas:
    def __init__(self) -> None:
        self.app: Future | None = None
        self.started = False
        self.websockets: tuple[str, int] | None = None  # the address of serve_websockets' listener

    def load(self, loader) -> None:
        loader.add_option("detour_replicas_in_process", bool, False,
                          "Answer routed requests from the replica app inside the proxy process "
                          "instead of over HTTP (the app reads the same $DETOUR_HOME and database).")

    def configure(self, updated: set[str]) -> None:
        if "detour_replicas_in_process" in updated:
            self.app = replica_app() if self.started and ctx.options.detour_replicas_in_process else None

    def running(self) -> None:
        """After the listeners open, so the app's imports do not delay them."""
        self.started = True
        if ctx.options.detour_replicas_in_process and self.app is None:
            self.app = replica_app()

    async def request(self, flow: http.HTTPFlow) -> None:
        if self.app is None or flow.response or flow.error or not flow.live:
            return
        verdict = flow.metadata.get(METADATA_KEY)
        if verdict is None or verdict.decision != "routed":  # routing did not point it at the replicas
            return
        # Once loaded, taken as it is: awaiting the thread's future would hop through the loop's self-pipe.
        app = self.app.result() if self.app.done() else await asyncio.wrap_future(self.app)
        if not is_websocket(flow) and not flow.metadata.get(STREAM_KEY):
            await asgiapp.serve(app, flow)
            return
        if self.websockets is None:  # uvicorn's scope is right as it is: the app without AsgiScope's mending
            self.websockets = serve_websockets(app.app)
        flow.request.host, flow.request.port = self.websockets
        PERMITTED.setdefault(flow.client_conn, set()).add(self.websockets)  # the upstream guard lets it through
