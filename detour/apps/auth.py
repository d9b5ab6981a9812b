"""The platform API's key check: one dependency every face's router takes."""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, Header, HTTPException, Request

KEY_COOKIE = "detour_key"  # the live view's browser sends the key this way (see live_view)


def require_api_key(request: Request, x_api_key: Annotated[str | None, Header()] = None) -> None:
    """The platform API's callers send X-API-Key, as AgentDiff's SDK does (or the live view's
    cookie); sandboxes never reach this server at all (the proxy routes them to the service
    paths only)."""
    expected: str | None = request.app.state.api_key
    given = x_api_key or request.cookies.get(KEY_COOKIE) or ""
    if expected is not None and not hmac.compare_digest(given.encode(), expected.encode()):
        raise HTTPException(401, "missing or wrong X-API-Key (`detour api-key` prints the key)")


ApiKeyDep = Depends(require_api_key)
