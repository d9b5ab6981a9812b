"""Dependencies shared by the replica routers, as `Annotated` aliases (FastAPI style)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from mock_services.request_budget import BudgetLedger
from mock_services.store import EnvironmentStore


def get_store(request: Request) -> EnvironmentStore:
    return request.app.state.store


StoreDep = Annotated[EnvironmentStore, Depends(get_store)]


def get_budgets(request: Request) -> BudgetLedger:
    return request.app.state.budgets


BudgetsDep = Annotated[BudgetLedger, Depends(get_budgets)]
