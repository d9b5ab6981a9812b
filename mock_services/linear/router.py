"""Linear's single GraphQL endpoint at AgentDiff's path: .../services/linear/graphql."""

from __future__ import annotations

import json
import threading
from functools import cache
from pathlib import Path

from ariadne import graphql_sync
from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from graphql import GraphQLSchema, build_ast_schema, parse

from detour_core.credentials import InvalidEnvId
from mock_services.deps import StoreDep, run_call
from detour_core.errors import EnvironmentNotFound
from mock_services.graphql.context import GraphQLContext
from mock_services.linear.model import MODEL
from mock_services.linear.errors import format_error
from mock_services.linear.keys import identify
from mock_services.graphql.limits import MAX_BODY_BYTES, QueryShape, parse_query
from mock_services.graphql.default_resolver import install
from mock_services.linear.mutations import bind_mutations
from mock_services.linear.resolvers import OBJECTS
from mock_services.linear.resolvers.queries import bind_roots
from mock_services.store import EnvironmentStore

router = APIRouter(prefix="/api/env/{env_id}/services/linear", tags=["linear"])

SCHEMA_PATH = Path(__file__).parent / "schema" / "linear.graphql"
AUTH_REQUIRED = {"message": "Authentication required, not authenticated",
                 "extensions": {"type": "authentication error", "code": "AUTHENTICATION_ERROR",
                                "userPresentableMessage": "You need to authenticate to access this operation."}}


_BUILDING = threading.Lock()


def schema() -> GraphQLSchema:
    """Built once per process; a request that races the app's warm-up waits for that build."""
    with _BUILDING:
        return built_schema()


@cache
def built_schema() -> GraphQLSchema:
    """Linear's schema with the domain modules' resolvers, then the generic ones for the rest.

    Built with graphql-core directly and taken as valid (a test validates the generated file):
    a third of the time ariadne's checked build takes for a schema this size."""
    built = build_ast_schema(parse(SCHEMA_PATH.read_text(), no_location=True), assume_valid=True,
                             assume_valid_sdl=True)
    for bindable in OBJECTS:
        bindable.bind_to_schema(built)
    bind_roots(built)
    bind_mutations(built)
    return install(built)


def errors(status: int, message: str, type_: str) -> JSONResponse:
    return JSONResponse({"errors": [{"message": message, "extensions": {"type": type_}}]}, status_code=status)


class _RollBack(Exception):
    """Carries a result with errors out of the transaction, so nothing of it is kept."""

    def __init__(self, result: dict) -> None:
        self.result = result


def execute(store: EnvironmentStore, env_id: str, data: dict, authorization: str) -> dict:
    try:
        with store.open(env_id, write=True, service="linear") as state:
            if state.service != "linear":
                return {"errors": [{"message": "This environment has no Linear state",
                                    "extensions": {"type": "invalid input"}}]}
            viewer = identify(state, authorization)
            if viewer is None:
                return {"errors": [AUTH_REQUIRED]}
            context = GraphQLContext(state, viewer, schema(), MODEL)
            _, result = graphql_sync(schema(), data, context_value=context, error_formatter=format_error,
                                     logger="mock_services.linear", query_parser=parse_query,
                                     validation_rules=[QueryShape])
            if result.get("errors"):
                raise _RollBack(result)
            return result
    except _RollBack as failed:
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
