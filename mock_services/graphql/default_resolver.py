"""The resolver of every field no domain module binds: by the field's type, never by its name.

A modeled relation (the pack's entity model) resolves from state: to-one fields to the named row,
connections to filtered, paged rows, lists to rows. Any other field resolves to the row's
value when it has one of the right shape, else to what the API gives for nothing (Linear's convention): null where
the schema allows it, otherwise an empty connection or list, false, zero, "" or the
epoch. So every field of the schema answers, and none needs a resolver of its own.
"""

from __future__ import annotations

from typing import Any

from graphql import (GraphQLEnumType, GraphQLInterfaceType, GraphQLList, GraphQLNonNull,
                     GraphQLObjectType, GraphQLResolveInfo, GraphQLScalarType, GraphQLSchema, GraphQLType,
                     GraphQLUnionType, get_named_type, get_nullable_type)

from mock_services.graphql.context import ctx
from mock_services.graphql.errors import ApiError, not_found
from mock_services.graphql.pagination import connection, empty_connection

EPOCH = "1970-01-01T00:00:00.000Z"
SCALAR_DEFAULTS: dict[str, Any] = {"String": "", "ID": "", "Boolean": False, "Int": 0, "Float": 0.0,
                                   "DateTime": EPOCH, "TimelessDate": "1970-01-01", "JSON": {}, "JSONObject": {},
                                   "UUID": "00000000-0000-0000-0000-000000000000", "Duration": "P0D",
                                   "DateTimeOrDuration": EPOCH, "TimelessDateOrDuration": "1970-01-01"}
ROOTS = ("Query", "Mutation")


def is_connection(gql_type: GraphQLType) -> bool:
    named = get_named_type(gql_type)
    return isinstance(named, GraphQLObjectType) and named.name.endswith("Connection") and "nodes" in named.fields


def node_type(connection_type: GraphQLType) -> str:
    nodes = get_named_type(connection_type).fields["nodes"].type  # type: ignore[union-attr]
    return get_named_type(nodes).name


def nothing(gql_type: GraphQLType) -> Any:
    """What a field of this type holds when there is nothing: null if allowed, else Linear's zero."""
    if not isinstance(gql_type, GraphQLNonNull):
        return None
    inner = gql_type.of_type
    if is_connection(inner):
        return empty_connection()
    if isinstance(inner, GraphQLList):
        return []
    if isinstance(inner, GraphQLEnumType):
        return next(iter(inner.values))
    if isinstance(inner, GraphQLScalarType):
        return SCALAR_DEFAULTS.get(inner.name, "")
    return {}  # an object with nothing in it: its own fields fall back the same way


def fits(value: Any, gql_type: GraphQLType) -> bool:
    """Whether a stored value can be served as this type (seeds hold Linear's JSON as it came)."""
    inner = get_nullable_type(gql_type)
    if isinstance(inner, GraphQLList):
        return isinstance(value, list)
    if isinstance(inner, GraphQLEnumType):
        return value in inner.values
    if isinstance(inner, GraphQLScalarType):
        expected = {"Boolean": bool, "Int": (int, float), "Float": (int, float), "String": str, "ID": str}
        kind = expected.get(inner.name)
        return kind is None or (isinstance(value, kind) and not (inner.name != "Boolean" and isinstance(value, bool)))
    return isinstance(value, dict)


def resolve_relation(row: dict, info: GraphQLResolveInfo, args: dict) -> tuple[bool, Any]:
    """(True, value) if the field is a relation between modeled types, else (False, None)."""
    owner, return_type = info.parent_type.name, info.return_type
    model, state = ctx(info).model, ctx(info).state
    if owner not in model.tables:
        return False, None
    if is_connection(return_type):
        target = node_type(return_type)
        if target not in model.tables:
            return False, None
        return True, page(info, target, model.listed(state, owner, info.field_name, target, row), args)
    target = get_named_type(return_type).name
    if target not in model.tables:
        return False, None
    if isinstance(get_nullable_type(return_type), GraphQLList):
        return True, model.listed(state, owner, info.field_name, target, row)
    return True, model.related(state, owner, info.field_name, target, row)


def page(info: GraphQLResolveInfo, target: str, rows: list[dict], args: dict) -> dict:
    """A connection over `rows`: archived rows left out unless asked for, filtered, then paged."""
    if not args.get("includeArchived"):
        rows = [r for r in rows if not r.get("archivedAt")]
    rows = ctx(info).filters.apply(target, rows, args.get("filter"))
    return connection(rows, **{k: v for k, v in args.items() if k in ("first", "after", "last", "before", "orderBy")})


def resolve_root(info: GraphQLResolveInfo) -> Any:
    """A root field no module binds: a list of something unmodeled is empty, a lookup of one
    by id is not found, and a singleton (the viewer's settings, say) is one with nothing set."""
    if is_connection(info.return_type):
        return empty_connection()
    if info.parent_type.name == "Mutation":
        raise ApiError(f"{info.field_name} is not supported by this replica", type="not supported")
    if isinstance(get_nullable_type(info.return_type), GraphQLList):
        return []
    target = get_named_type(info.return_type)
    lookup = "id" in info.parent_type.fields[info.field_name].args
    if isinstance(target, GraphQLObjectType | GraphQLInterfaceType) and "id" in target.fields and lookup:
        raise not_found(target.name)
    if isinstance(target, GraphQLObjectType) and "id" in target.fields and info.return_type is target:
        return None  # an entity the schema lets be absent (the latest release): there is none
    if isinstance(target, GraphQLObjectType):
        return {}
    return nothing(info.return_type)


def default_resolver(source: Any, info: GraphQLResolveInfo, **args: Any) -> Any:
    if info.parent_type.name in ROOTS:
        return resolve_root(info)
    row = source if isinstance(source, dict) else {}
    computed = ctx(info).model.computed.get((info.parent_type.name, info.field_name))
    if computed:
        return computed(row)
    handled, value = resolve_relation(row, info, args)
    if handled:
        return value if value is not None else nothing(info.return_type)
    value = row.get(info.field_name)
    if value is not None and fits(value, info.return_type):
        return value
    return nothing(info.return_type)


def resolve_abstract(value: Any, info: GraphQLResolveInfo, abstract: GraphQLInterfaceType | GraphQLUnionType) -> str:
    """Rows may say what they are (`__typename`); otherwise the first type that can be one."""
    named = value.get("__typename") if isinstance(value, dict) else None
    return named or info.schema.get_possible_types(abstract)[0].name


def install(schema: GraphQLSchema) -> GraphQLSchema:
    """Give every unbound field the default resolver, and every abstract type a type resolver."""
    for gql_type in schema.type_map.values():
        if gql_type.name.startswith("__"):
            continue
        if isinstance(gql_type, GraphQLObjectType):
            for field in gql_type.fields.values():
                field.resolve = field.resolve or default_resolver
        elif isinstance(gql_type, GraphQLInterfaceType | GraphQLUnionType) and gql_type.resolve_type is None:
            gql_type.resolve_type = resolve_abstract
    return schema
