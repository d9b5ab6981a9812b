"""One route: POST /v1/notes stores a note, GET /v1/notes lists them."""

from __future__ import annotations

import uuid

from fastapi import APIRouter, Request

from mock_services.deps import StoreDep

router = APIRouter(prefix="/api/env/{env_id}/services/notes")


@router.api_route("/v1/notes", methods=["GET", "POST"])
async def notes(env_id: str, request: Request, store: StoreDep) -> dict:
    text = (await request.json())["text"] if request.method == "POST" else None
    with store.open(env_id, write=text is not None) as state:
        if text is not None:
            state.insert("notes", {"id": uuid.uuid4().hex[:8], "text": text})
        return {"notes": [row["text"] for row in state.rows("notes")]}
