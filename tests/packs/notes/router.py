"""One route: POST /v1/notes stores a note, GET /v1/notes lists them. The descriptor reaches the
router through `builds`, which counts how often a process builds the pack's routes."""

from __future__ import annotations

import os
import threading
import uuid

from fastapi import APIRouter, Request

from mock_services.deps import StoreDep

BUILDS_VARIABLE = "NOTES_BUILDS"  # a file a stack's processes note each build in (their pid, a line each)
router = APIRouter(prefix="/api/env/{env_id}/services/notes")


@router.api_route("/v1/notes", methods=["GET", "POST"])
async def notes(env_id: str, request: Request, store: StoreDep) -> dict:
    text = (await request.json())["text"] if request.method == "POST" else None
    with store.open(env_id, write=text is not None) as state:
        if text is not None:
            state.insert("notes", {"id": uuid.uuid4().hex[:8], "text": text})
        return {"notes": [row["text"] for row in state.rows("notes")]}


class Builds:
    """The router, counted each time the app asks for it (once per process when packs are built
    once). A test in the app's process holds a build at `gate` to have first requests pile up."""

    def __init__(self) -> None:
        self.count = 0
        self.gate = threading.Event()
        self.gate.set()

    @property
    def router(self) -> APIRouter:
        self.count += 1
        if noted := os.environ.get(BUILDS_VARIABLE):
            with open(noted, "a") as file:
                file.write(f"{os.getpid()}\n")
        if not self.gate.wait(timeout=60):
            raise TimeoutError("the test never opened the gate")
        return router


builds = Builds()
