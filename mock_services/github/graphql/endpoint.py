"""`POST api.github.com/graphql`: GitHub's public schema (generated, descriptions left out)
on the generic GraphQL engine. The state-backed fields and mutations are bound by
resolvers.py and mutations.py; every other field answers what the engine gives for nothing and
every other mutation a typed error. Errors are GitHub's: `type`, `path`, `locations`, `message`."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from graphql import GraphQLError, GraphQLSchema, validate
from graphql.validation import OverlappingFieldsCanBeMergedRule

from detour_core.errors import EnvironmentNotFound
from mock_services.deps import StoreDep, run_call
from mock_services.github import access
from mock_services.github.errors import DOCS
from mock_services.github.graphql.mutations import bind_mutations
from mock_services.github.graphql.resolvers import bind
from mock_services.graphql.entities import EntityModel
from mock_services.graphql.errors import ApiError
from mock_services.graphql.limits import MAX_BODY_BYTES
from mock_services.graphql.service import Failed, ServiceSchema, run_request
from mock_services.rest.errors import RestError
from mock_services.rest.router import Engine
from mock_services.store import EnvironmentStore

MODEL = EntityModel(tables={})  # the resolvers shape GitHub's objects themselves


def github_validate(schema: GraphQLSchema, document, rules, **kwargs) -> list[GraphQLError]:  # noqa: ANN001
    """GraphQL's checks as GitHub's server makes them: it takes a field of one name and two
    enum types in two fragments of a union (`state` on an Issue and on a PullRequest of
    `issueOrPullRequest`, which `gh issue view` asks for), where graphql-core's overlap rule
    refuses it; every other rule stands."""
    return validate(schema, document, [r for r in rules if r is not OverlappingFieldsCanBeMergedRule], **kwargs)


def _bind(built: GraphQLSchema) -> None:
    bind(built)
    bind_mutations(built)


SCHEMA_PATH = Path(__file__).parent / "schema.graphql"
schema = ServiceSchema(SCHEMA_PATH, _bind)


def format_error(error: GraphQLError, debug: bool = False) -> dict:
    formatted = error.formatted
    original = error.original_error
    if isinstance(original, ApiError):
        formatted["type"] = "UNPROCESSABLE" if original.type == "not supported" else original.type
        if original.type == "not supported":
            formatted["message"] = f"{error.path[-1] if error.path else 'this'} is not modeled by detour's " \
                                   "GitHub replica yet"
    elif original is not None and not isinstance(original, GraphQLError):
        formatted["message"] = "Something went wrong while executing your query."
    return formatted


def execute(store: EnvironmentStore, env_id: str, data: dict, headers: dict[str, str]) -> tuple[int, dict]:
    try:
        with store.open(env_id, write=True, service="github") as state:
            if state.service != "github":
                return 404, {"message": "Not Found", "documentation_url": DOCS, "status": "404"}
            try:
                viewer = access.identify(state, None, headers)
            except RestError:
                viewer = str(access.ANONYMOUS)
            if viewer == str(access.ANONYMOUS):
                return 401, {"message": "This endpoint requires you to be authenticated.", "documentation_url":
                             f"{DOCS.removesuffix('/rest')}/graphql/guides/forming-calls-with-graphql#authenticating"
                             "-with-graphql", "status": "401"}
            # A query's partial data stands beside its errors; a mutation with errors keeps nothing.
            return 200, run_request(state, viewer, schema(), MODEL, data, format_error, "mock_services.github",
                                    keep_failed=not data["query"].lstrip().startswith("mutation"),
                                    validator=github_validate)
    except Failed as failed:
        return 200, failed.result


def graphql_routes(router: APIRouter, engine: Engine) -> None:
    @router.post("/graphql")
    async def graphql(env_id: str, request: Request, store: StoreDep) -> JSONResponse:
        body = await request.body()
        if len(body) > MAX_BODY_BYTES:
            return JSONResponse({"message": "Request body too large", "status": "413"}, status_code=413)
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):
            return JSONResponse({"message": "Problems parsing JSON", "documentation_url": DOCS, "status": "400"},
                                status_code=400)
        if not isinstance(data, dict) or not isinstance(data.get("query"), str):
            return JSONResponse({"errors": [{"message": "A query attribute must be specified and must be a "
                                                        "string."}]}, status_code=200)
        try:
            status, result = await run_call(request, execute, store, env_id, data,
                                            {k.lower(): v for k, v in request.headers.items()})
        except EnvironmentNotFound:
            return JSONResponse({"message": "Not Found", "documentation_url": DOCS, "status": "404"}, status_code=404)
        return JSONResponse(result, status_code=status)
