"""Dependencies shared by the replica routers, as `Annotated` aliases (FastAPI style)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, TypeVar

from fastapi import Depends, Request
from starlette.requests import HTTPConnection
from starlette.concurrency import run_in_threadpool

from mock_services.store import EnvironmentStore


async def get_store(request: Request) -> EnvironmentStore:
    """Async though it does no I/O: FastAPI runs a plain `def` dependency in a worker thread on
    every request (~10% of a replica call's samples in the proxy's process)."""
    return request.app.state.store


StoreDep = Annotated[EnvironmentStore, Depends(get_store)]

T = TypeVar("T")


async def run_call(request: HTTPConnection, call: Callable[..., T], *args: object) -> T:
    """A replica call, synchronous and bound to the store. Under uvicorn it runs in a worker
    thread, so the server keeps taking requests. Inside the proxy process (`inline_calls`) it
    runs on the event loop: there the GIL handoffs between loop and thread cost more than the
    call and starved some connections (`make bench`: 8 clients' p99 was 450-540 ms for Slack's
    auth.test and 1.5-1.7 s for a 50-issue Linear list, against ~45 ms and ~400 ms inline)."""
    if request.app.state.inline_calls:
        return call(*args)
    return await run_in_threadpool(call, *args)
