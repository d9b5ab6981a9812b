"""What every GraphQL pack's endpoint does the same way: build its vendor's schema once per
process, and run one request against an environment's state inside that request's transaction,
so that a request that fails keeps nothing of what it wrote."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from ariadne import graphql_sync
from graphql import GraphQLError, GraphQLObjectType, GraphQLSchema, build_ast_schema, parse

from mock_services.coverage import GENERATED, NOT_SERVED, STATEFUL, Kind

from mock_services.graphql.context import GraphQLContext
from mock_services.graphql.default_resolver import install
from mock_services.graphql.entities import EntityModel
from mock_services.graphql.limits import QueryShape, parse_query
from mock_services.store import EnvState


class ServiceSchema:
    """A vendor's schema (its generated SDL file) with the pack's resolvers (`bind`), then the
    generic ones for the rest. Built once, on first call, by graphql-core and taken as valid (a
    test validates each generated file; it repeats fields graphql-core's SDL check refuses, and
    the checked build takes three times as long); a request that races the server's warm-up
    waits for that build."""

    def __init__(self, path: Path, bind: Callable[[GraphQLSchema], None]) -> None:
        self.path, self.bind = path, bind
        self._built: GraphQLSchema | None = None
        self._bound: frozenset[str] = frozenset()  # the root fields the pack's own resolvers answer
        self._building = threading.Lock()

    def __call__(self) -> GraphQLSchema:
        with self._building:
            if self._built is None:
                built = build_ast_schema(parse(self.path.read_text(), no_location=True), assume_valid=True,
                                         assume_valid_sdl=True)
                self.bind(built)
                self._bound = frozenset(f"{root.name}.{name}" for root in _roots(built)
                                        for name, field in root.fields.items() if field.resolve)
                self._built = install(built)
            return self._built

    def coverage(self) -> dict[str, Kind]:
        """Each root field: the pack's resolver keeps state; a query the generic resolver answers
        empty is generated; a mutation it refuses is not served (mock_services/coverage.py)."""
        built = self()
        return {f"{root.name}.{name}": STATEFUL if f"{root.name}.{name}" in self._bound
                else GENERATED if root is built.query_type else NOT_SERVED
                for root in _roots(built) for name in root.fields}


def _roots(built: GraphQLSchema) -> list[GraphQLObjectType]:
    return [root for root in (built.query_type, built.mutation_type) if root is not None]


class Failed(Exception):
    """Carries a result with errors out of the transaction, so nothing of it is kept."""

    def __init__(self, result: dict) -> None:
        self.result = result


def run_request(state: EnvState, viewer: str, schema: GraphQLSchema, model: EntityModel, data: dict,
                format_error: Callable[[GraphQLError, bool], dict], logger: str, keep_failed: bool = False,
                validator: Callable[..., list[GraphQLError]] | None = None) -> dict:
    """The request's result; raises `Failed` where it has errors (unless `keep_failed`), for
    the caller's transaction to roll back. `validator`: the vendor's own checks of a query
    (graphql-core's `validate` by default)."""
    context = GraphQLContext(state, viewer, schema, model)
    _, result = graphql_sync(schema, data, context_value=context, error_formatter=format_error, logger=logger,
                             query_parser=parse_query, validation_rules=[QueryShape], query_validator=validator)
    if result.get("errors") and not keep_failed:
        raise Failed(result)
    return result
