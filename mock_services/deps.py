"""Dependencies shared by the replica routers, as `Annotated` aliases (FastAPI style)."""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, Header, HTTPException, Request

from mock_services.request_budget import BudgetLedger
from mock_services.store import EnvironmentStore


def get_store(request: Request) -> EnvironmentStore:
    return request.app.state.store


StoreDep = Annotated[EnvironmentStore, Depends(get_store)]


def get_budgets(request: Request) -> BudgetLedger:
    return request.app.state.budgets


BudgetsDep = Annotated[BudgetLedger, Depends(get_budgets)]


def require_api_key(request: Request, x_api_key: Annotated[str | None, Header()] = None) -> None:
    """The platform API's callers send X-API-Key, as AgentDiff's SDK does; sandboxes never
    reach this server at all (the proxy routes them to the service paths only)."""
    expected: str | None = request.app.state.api_key
    if expected is not None and not hmac.compare_digest((x_api_key or "").encode(), expected.encode()):
        raise HTTPException(401, "missing or wrong X-API-Key (`detour api-key` prints the key)")


ApiKeyDep = Depends(require_api_key)
