"""Runs of the run API while they run: their output as it comes (NDJSON), and their stop.

A caller names its run (`run_id`) and may stop it: `POST /api/platform/runs/{run_id}/stop`
ends the sandbox as "interrupted", and the run's answer still comes, with the output and the
requests so far. A streaming caller that goes away stops its run the same way: nothing runs on
for a caller that is gone (a Ctrl-C'd `detour run`, a killed client).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import json
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TypeVar

import anyio.to_thread
from anyio import CapacityLimiter
from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel

from detour_core.errors import DetourError
from sandbox.base import RunControl

router = APIRouter(tags=["run"])  # within the run API's router, under its prefix
RUN_ID_PATTERN = r"^[A-Za-z0-9_.-]{1,64}$"
T = TypeVar("T")


class Stopped(BaseModel):
    run_id: str
    stopped: bool


def _controls(app: FastAPI) -> dict[str, RunControl]:
    if not hasattr(app.state, "live_runs"):
        app.state.live_runs = {}
    return app.state.live_runs


@contextlib.contextmanager
def registered(app: FastAPI, run_id: str | None) -> Iterator[RunControl]:
    """A control for one run, findable by its id while the run lasts."""
    control, runs = RunControl(), _controls(app)
    if run_id is not None:
        if run_id in runs:
            raise HTTPException(409, f"run {run_id!r} is running already: name each run anew")
        runs[run_id] = control
    try:
        yield control
    finally:
        if run_id is not None:
            runs.pop(run_id, None)


@router.post("/runs/{run_id}/stop")
def stop(run_id: str, request: Request) -> Stopped:
    """Ends the named run's sandbox now; its answer reports what it did so far."""
    control = _controls(request.app).get(run_id)
    if control is None:
        raise HTTPException(404, f"no run {run_id!r} is running here")
    control.stop.set()
    return Stopped(run_id=run_id, stopped=True)


async def in_thread(work: Callable[[], T]) -> T:
    """`work()` in a worker thread, awaited, with no cap on how many run at once: a sync endpoint
    takes FastAPI's pool of 40 threads, which capped the sandboxes live at once at 40 (128 posted
    together ran in waves). Each run's limiter is its own, so none waits on another's; anyio
    keeps idle workers for the next runs."""
    return await anyio.to_thread.run_sync(work, limiter=CapacityLimiter(1))


async def while_connected(request: Request, stop: threading.Event, work: Callable[[], T]) -> T:
    """`work()` in a thread of its own (in_thread), with `stop` set if the caller hangs up first
    (a dropped connection, a killed or Ctrl-C'd client): nothing runs on for a caller that is gone.
    The body is read by now, so the server's next message is the disconnect."""
    async def hang_up() -> None:
        while (await request.receive())["type"] != "http.disconnect":
            pass
        stop.set()

    watcher = asyncio.create_task(hang_up())
    try:
        return await in_thread(work)
    finally:
        watcher.cancel()


async def answer(request: Request, run_id: str | None, stream: bool, go: Callable[[RunControl], BaseModel]):
    """`go(control)`'s result; with `stream`, NDJSON: {"stdout"|"stderr": text} as the program
    writes it, then {"result": ...} (or {"error": ...})."""
    if not stream:
        with registered(request.app, run_id) as control:
            return await while_connected(request, control.stop, lambda: go(control))
    return StreamingResponse(_lines(request.app, run_id, go), media_type="application/x-ndjson")


async def _lines(app: FastAPI, run_id: str | None, go: Callable[[RunControl], BaseModel]) -> AsyncIterator[bytes]:
    loop, queue = asyncio.get_running_loop(), asyncio.Queue()
    decoders = {name: codecs.getincrementaldecoder("utf-8")("replace") for name in ("stdout", "stderr")}
    put: Callable[[dict], None] = lambda item: loop.call_soon_threadsafe(queue.put_nowait, item)

    def output(name: str, chunk: bytes) -> None:
        if text := decoders[name].decode(chunk):
            put({name: text})

    def work(control: RunControl) -> None:
        control.output = output
        try:
            last = {"result": json.loads(go(control).model_dump_json())}
        except DetourError as e:
            last = {"error": str(e)}
        except Exception as e:  # the stream's last line must come whatever happened, or the caller waits on
            last = {"error": f"the run failed: {type(e).__name__}: {e}"}
        put(last)

    with registered(app, run_id) as control:
        threading.Thread(target=work, args=(control,), name="detour-live-run", daemon=True).start()
        try:
            while True:
                item = await queue.get()
                yield (json.dumps(item) + "\n").encode()
                if "result" in item or "error" in item:
                    break
        finally:
            control.stop.set()  # the caller went away (or the run ended): nothing runs on for it
