"""Linear's single GraphQL endpoint at AgentDiff's path: .../services/linear/graphql."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from graphql import GraphQLSchema

from detour_core.credentials import InvalidEnvId
from mock_services.deps import StoreDep, run_call
from detour_core.errors import EnvironmentNotFound
from mock_services.linear.model import MODEL
from mock_services.linear.errors import format_error
from mock_services.linear.keys import identify
from mock_services.graphql.limits import MAX_BODY_BYTES
from mock_services.graphql.service import Failed, ServiceSchema, run_request
from mock_services.linear.mutations import bind_mutations
from mock_services.linear.resolvers import OBJECTS
from mock_services.linear.resolvers.queries import bind_roots
from mock_services.store import EnvironmentStore

router = APIRouter(prefix="/api/env/{env_id}/services/linear", tags=["linear"])

AUTH_REQUIRED = {"message": "Authentication required, not authenticated",
                 "extensions": {"type": "authentication error", "code": "AUTHENTICATION_ERROR",
                                "userPresentableMessage": "You need to authenticate to access this operation."}}


def _bind(built: GraphQLSchema) -> None:
    """Linear's domain resolvers (the generic ones serve the rest)."""
    for bindable in OBJECTS:
        bindable.bind_to_schema(built)
    bind_roots(built)
    bind_mutations(built)


schema = ServiceSchema(Path(__file__).parent / "schema" / "linear.graphql", _bind)


def errors(status: int, message: str, type_: str) -> JSONResponse:
    return JSONResponse({"errors": [{"message": message, "extensions": {"type": type_}}]}, status_code=status)


def execute(store: EnvironmentStore, env_id: str, data: dict, authorization: str) -> dict:
    try:
        with store.open(env_id, write=True, service="linear") as state:
            if state.service != "linear":
                return {"errors": [{"message": "This environment has no Linear state",
                                    "extensions": {"type": "invalid input"}}]}
            viewer = identify(state, authorization)
            if viewer is None:
                return {"errors": [AUTH_REQUIRED]}
            return run_request(state, viewer, schema(), MODEL, data, format_error, "mock_services.linear")
    except Failed as failed:
        return failed.result


@router.post("/graphql")
async def graphql(env_id: str, request: Request, store: StoreDep) -> JSONResponse:
    authorization = request.headers.get("authorization", "").strip()
    if not authorization:
        return JSONResponse({"errors": [AUTH_REQUIRED]}, status_code=400)
    body = await request.body()
    if len(body) > MAX_BODY_BYTES:
        return errors(413, f"Request body too large: the limit is {MAX_BODY_BYTES} bytes", "invalid input")
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return errors(400, "Body is not valid JSON", "invalid input")
    if not isinstance(data, dict) or not isinstance(data.get("query"), str):
        return errors(400, "Expected a JSON object with a 'query' string", "invalid input")
    try:
        result = await run_call(request, execute, store, env_id, data, authorization)
    except EnvironmentNotFound as e:
        return errors(404, str(e), "entity not found")
    except InvalidEnvId as e:
        return errors(400, str(e), "invalid input")
    # GraphQL over HTTP: 400 only when the request never executed (parse or validation).
    return JSONResponse(result, status_code=200 if "data" in result else 400)
