"""The live view: a page that shows each environment's requests as the proxy records them,
a request's redacted headers and bodies, and the environment's diff.

The page polls the records API (`after` is where the last answer ended), so a request a
sandbox makes appears within a poll, without a reload. A browser cannot send X-API-Key, so
`/ui?key=...` trades the key for a cookie (HttpOnly, SameSite=Strict) that the API accepts.
"""

from __future__ import annotations

import hmac
import json
from datetime import datetime
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse
from pydantic import BaseModel

from detour_core.audit import AuditLog, AuditRecord, segment_file, segments
from detour.apps.auth import KEY_COOKIE
from mock_services.deps import StoreDep

PAGE = Path(__file__).with_name("index.html")
page_router = APIRouter(tags=["live view"])
router = APIRouter(prefix="/api/platform/audit", tags=["live view"])


class Page(BaseModel):
    records: list[AuditRecord]
    after: str  # "segment:offset": pass it back to get only what came since


class Environment(BaseModel):
    env_id: str | None
    live: bool  # it still exists (records of deleted environments stay)
    created_at: float | None  # when it was made; for a deleted one, its first record's time


def audit(request: Request) -> AuditLog:
    return AuditLog(request.app.state.store.state.audit_dir)


@page_router.get("/ui", response_class=HTMLResponse)
def page(request: Request, key: str | None = None):
    expected: str | None = request.app.state.api_key
    if key is not None:
        if expected is not None and not hmac.compare_digest(key.encode(), expected.encode()):
            raise HTTPException(401, "wrong key (`detour api-key` prints it)")
        answer = RedirectResponse("/ui", status_code=303)
        answer.set_cookie(KEY_COOKIE, key, httponly=True, samesite="strict")
        return answer
    cookie = request.cookies.get(KEY_COOKIE, "")
    if expected is not None and not hmac.compare_digest(cookie.encode(), expected.encode()):
        return HTMLResponse("<p>Open <code>/ui?key=KEY</code> with the key <code>detour api-key</code> prints.</p>",
                            status_code=401)
    return FileResponse(PAGE)


def first_record_at(log: AuditLog, env_id: str | None) -> float | None:
    """The time of an environment's oldest kept record: one line read, not the whole log."""
    folder = log.folder(env_id)
    numbers = segments(folder)
    if not numbers:
        return None
    with segment_file(folder, numbers[0]).open("rb") as f:
        line = f.readline()
    try:
        return datetime.fromisoformat(json.loads(line)["ts"].replace("Z", "+00:00")).timestamp()
    except (ValueError, KeyError, TypeError):
        return None


@router.get("/environments")
def environments(request: Request, store: StoreDep) -> list[Environment]:
    """Newest first; connections that named no environment last."""
    log = audit(request)
    created = {info.env_id: info.created_at for info in store.list()}
    found = [Environment(env_id=e, live=e in created, created_at=created.get(e) or first_record_at(log, e))
             for e in set(created) | set(log.environments())]
    return sorted(found, key=lambda e: (e.env_id is None, -(e.created_at or 0), e.env_id or ""))


def _position(after: str) -> tuple[int, int]:
    try:
        segment, offset = (int(part) for part in after.split(":"))
    except ValueError:
        raise HTTPException(400, f"after is segment:offset, not {after!r}") from None
    return segment, offset


@router.get("/records")
def records(request: Request, env: str | None = None, after: Annotated[str, Query()] = "0:0") -> Page:
    """`env` omitted: connections that named no environment."""
    found, position = audit(request).read(env, _position(after))
    return Page(records=found, after=f"{position[0]}:{position[1]}")


@router.get("/records/{record_id}")
def record(request: Request, record_id: str, env: str | None = None) -> AuditRecord:
    found = audit(request).find(env, record_id)
    if found is None:
        raise HTTPException(404, f"no record {record_id!r}")
    return found
