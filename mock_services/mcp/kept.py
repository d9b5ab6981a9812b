"""A session's transport and server run, kept in the process that serves the session's requests.

A request in a session was once a transport and a server run of its own (as the SDK's stateless
mode does it): a task group, memory streams, a ServerSession and their teardown, about a quarter
of what an MCP tool call costs beyond the pack's own work (`make bench`'s MCP rows). Here the
SDK's transport for a session, and the server reading it, are made the first time a process sees
a POST in that session and serve its later POSTs, in the background of the event loop that
serves them, as the SDK's StreamableHTTPSessionManager keeps its sessions. Any proxy worker may
take any request (a session is a signed id, endpoint.py), so each process keeps its own; the
manager cannot be used as is, since it answers 404 for a session another process opened.

A kept session ends when the SDK's transport finds it idle for IDLE seconds, when it is ended
(DELETE) or when more than LIMIT are kept (the least recently used goes).
"""

from __future__ import annotations

import asyncio
import weakref
from collections import OrderedDict

import anyio
from mcp.server.lowlevel import Server
from mcp.server.streamable_http import StreamableHTTPServerTransport

IDLE = 300.0  # seconds without a request in flight
LIMIT = 256   # sessions kept per server and event loop


class KeptSessions:
    """One server's kept sessions, per event loop (the proxy's and its loopback server's differ)."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, OrderedDict[str, StreamableHTTPServerTransport]] = \
            weakref.WeakKeyDictionary()
        self.tasks: set[asyncio.Task] = set()  # the runs, held so that they are not collected

    def _kept(self) -> OrderedDict[str, StreamableHTTPServerTransport]:
        return self.loops.setdefault(asyncio.get_running_loop(), OrderedDict())

    async def transport(self, session: str) -> StreamableHTTPServerTransport:
        """The session's transport, its server already reading it."""
        kept = self._kept()
        transport = kept.get(session)
        if transport is not None and not transport.is_terminated and not _idle(transport):
            kept.move_to_end(session)
            return transport
        transport = StreamableHTTPServerTransport(mcp_session_id=session, is_json_response_enabled=True,
                                                  idle_timeout=IDLE)
        kept[session] = transport
        started = asyncio.Event()
        task = asyncio.get_running_loop().create_task(self._run(kept, session, transport, started))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        await started.wait()
        if task.done():
            task.result()  # its failure, raised here
        while len(kept) > LIMIT:
            await kept.popitem(last=False)[1].terminate()
        return transport

    async def end(self, session: str) -> None:
        """The session was ended (DELETE): its kept transport, if this process has one, goes."""
        transport = self._kept().pop(session, None)
        if transport is not None:
            await transport.terminate()

    async def _run(self, kept: OrderedDict[str, StreamableHTTPServerTransport], session: str,
                   transport: StreamableHTTPServerTransport, started: asyncio.Event) -> None:
        """The server over the transport until the transport ends; already initialized (the
        session's `initialize` was an earlier request's), as the SDK's stateless mode runs it."""
        try:
            async with transport.connect() as (read, write), anyio.create_task_group() as running:
                started.set()
                running.start_soon(_end_when_idle, transport)
                await self.server.run(read, write, self.server.create_initialization_options(), stateless=True)
                running.cancel_scope.cancel()
        finally:
            started.set()
            if kept.get(session) is transport:
                del kept[session]


def _idle(transport: StreamableHTTPServerTransport) -> bool:
    """Found idle and about to end: a request must not go to it (it would answer 404)."""
    return transport.idle_scope is not None and transport.idle_scope.cancel_called


async def _end_when_idle(transport: StreamableHTTPServerTransport) -> None:
    """The transport cancels its idle scope once no request has been in flight for IDLE seconds;
    ending it ends the server's run."""
    assert transport.idle_scope is not None
    with transport.idle_scope:
        await anyio.sleep_forever()
    await transport.terminate()
