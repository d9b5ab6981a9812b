"""The live view: a page that shows each environment's requests as the proxy records them,
a request's redacted headers and bodies, and the environment's diff.

The page polls the records API (`after` is where the last answer ended), so a request a
sandbox makes appears within a poll, without a reload. A browser cannot send X-API-Key, so
`/ui?key=...` trades the key for a cookie (HttpOnly, SameSite=Strict) that the API accepts.
"""

from __future__ import annotations

import hmac
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse
from pydantic import BaseModel

from detour_core.audit import AuditLog, AuditRecord
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


@router.get("/environments")
def environments(request: Request, store: StoreDep) -> list[Environment]:
    existing = {info.env_id for info in store.list()}
    recorded = set(audit(request).environments())
    return [Environment(env_id=e, live=e in existing)
            for e in sorted(existing | recorded, key=lambda e: (e is None, e or ""))]


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
