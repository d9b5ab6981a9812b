"""The root queries of every modeled entity, bound from the schema rather than written one by one.

A Query field that returns a modeled type's connection lists its rows (filter,
includeArchived, paging, orderBy); one that returns the type itself and takes an `id`
finds a row by id, or by the other keys Linear accepts (an issue's identifier, a team's key).
"""

from __future__ import annotations

from typing import Any

from graphql import GraphQLNonNull, GraphQLObjectType, GraphQLSchema, get_named_type

from mock_services.linear import model
from mock_services.graphql.context import ctx
from mock_services.graphql.default_resolver import is_connection, node_type, page
from mock_services.linear.model import find
from mock_services.store import Row

def list_resolver(target: str):
    def resolve(_: Any, info, **args: Any) -> dict:
        return page(info, target, ctx(info).state.rows(model.TABLES[target]), args)
    return resolve


def get_resolver(target: str):
    def resolve(_: Any, info, id: str | None = None, **__: Any) -> Row:
        return find(ctx(info).state, target, id)
    return resolve


def bind_roots(schema: GraphQLSchema) -> None:
    query: GraphQLObjectType = schema.query_type  # type: ignore[assignment]
    for field in query.fields.values():
        if field.resolve is not None:
            continue
        if is_connection(field.type) and node_type(field.type) in model.TABLES:
            field.resolve = list_resolver(node_type(field.type))
        elif isinstance(field.type, GraphQLNonNull) and get_named_type(field.type).name in model.TABLES \
                and "id" in field.args:
            field.resolve = get_resolver(get_named_type(field.type).name)
