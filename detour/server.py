"""The replica server of a stack: the replicas and platform API (mock_services.app), plus the
run API, which needs the stack's proxy and so sits above the replicas.

Run with `uvicorn detour.server:create_app --factory`; the stack passes its own description in
the environment, so that runs go through its proxy.
"""

from __future__ import annotations

import os

from fastapi import FastAPI

from detour import run_api
from detour.client import Client
from detour.paths import STACK_VARIABLE, StatePaths
from detour.stack import StackInfo
from mock_services.app import create_app as replica_app
from mock_services.deps import ApiKeyDep


def create_app() -> FastAPI:
    state = StatePaths.default().ensure()
    app = replica_app(state)
    described = os.environ.get(STACK_VARIABLE)
    app.state.run_client = Client(home=state.home, stack=StackInfo.model_validate_json(described)) \
        if described else None
    app.include_router(run_api.router, dependencies=[ApiKeyDep])
    return app
