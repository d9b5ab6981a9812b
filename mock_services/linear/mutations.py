"""Create, update, archive, unarchive and delete for every modeled entity, from one set of helpers.

Mutation fields named `<entity>Create|Update|Archive|Unarchive|Delete` that no domain
module binds get these generic ones: input fields become columns of the same name, every
`<relation>Id` must name an existing row, and payloads take Linear's shapes
(`{success, lastSyncId, <entity>}`, `{success, lastSyncId, entity}`, `{success, lastSyncId,
entityId}`). A domain module adds only what its entity does beyond that.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphql import GraphQLObjectType, GraphQLSchema, get_named_type

from mock_services import clock
from mock_services.linear import model
from mock_services.graphql.context import GraphQLContext, ctx, new_id
from mock_services.linear.model import now_iso
from mock_services.graphql.errors import ApiError, not_found
from mock_services.linear.model import find
from mock_services.store import Row

# verb -> the arguments the generic resolver needs; a mutation named alike with others is not generic
VERBS = {"Create": {"input"}, "Update": {"id", "input"}, "Archive": {"id"}, "Unarchive": {"id"}, "Delete": {"id"}}

# type -> what a new row of it starts with, beyond its input (called with the context and the input)
Defaults = Callable[[GraphQLContext, dict], dict]
NEW_ROW_DEFAULTS: dict[str, Defaults] = {}


def changed(state_row: Row, changes: dict) -> Row:
    """A row with `changes` applied and its updatedAt moved on."""
    return {**state_row, **changes, "updatedAt": now_iso()}


def sync_id() -> float:
    return float(clock.now())


def entity_payload(field: str, row: Row) -> dict:
    return {"success": True, "lastSyncId": sync_id(), field: row}


def archive_payload(row: Row) -> dict:
    return {"success": True, "lastSyncId": sync_id(), "entity": row}


def delete_payload(entity_id: str) -> dict:
    return {"success": True, "lastSyncId": sync_id(), "entityId": entity_id}


def checked_references(c: GraphQLContext, type_name: str, values: dict) -> None:
    """Every `<relation>Id` must name an existing row of the relation's type."""
    owner = c.schema.type_map.get(type_name)
    if not isinstance(owner, GraphQLObjectType):
        return
    for key, value in values.items():
        if not key.endswith("Id") or value is None:
            continue
        field = owner.fields.get(key[:-2])
        target = get_named_type(field.type).name if field else None
        if target in model.TABLES:
            find(c.state, target, value)


def fresh_id(c: GraphQLContext, table: str, wanted: str | None) -> str:
    """The id a new row gets: the caller's (Linear lets clients choose one) if it is free."""
    if wanted and c.state.first(table, id=wanted):
        raise ApiError(f"Argument Validation Error: id {wanted} is already in use")
    return wanted or new_id()


def new_row(c: GraphQLContext, type_name: str, values: dict) -> Row:
    checked_references(c, type_name, values)
    now = now_iso()
    base = {"id": fresh_id(c, model.TABLES[type_name], values.get("id")), "createdAt": now, "updatedAt": now,
            "archivedAt": None}
    extra = NEW_ROW_DEFAULTS.get(type_name, lambda _c, _v: {})(c, values)
    row = {**base, **extra, **{k: v for k, v in values.items() if k != "id"}}
    return c.state.insert(model.TABLES[type_name], row)


def update_row(c: GraphQLContext, type_name: str, row: Row, changes: dict) -> Row:
    checked_references(c, type_name, changes)
    return c.state.update(model.TABLES[type_name], changed(row, changes))


def set_archived(c: GraphQLContext, type_name: str, ref: str, archived: bool) -> dict:
    row = find(c.state, type_name, ref)
    if bool(row.get("archivedAt")) == archived:
        raise ApiError(f"{type_name} is {'already' if archived else 'not'} archived")
    return archive_payload(update_row(c, type_name, row, {"archivedAt": now_iso() if archived else None}))


def delete_row(c: GraphQLContext, type_name: str, ref: str) -> dict:
    """Linear soft-deletes what can be archived (comments, relations, labels, ...): the row stays,
    with `archivedAt`, out of lists but found by id; the rest goes."""
    row = find(c.state, type_name, ref)
    owner = c.schema.type_map.get(type_name)
    if isinstance(owner, GraphQLObjectType) and "archivedAt" in owner.fields:
        if row.get("archivedAt"):
            raise not_found(type_name)  # deleted once already
        c.state.update(model.TABLES[type_name], changed(row, {"archivedAt": now_iso()}))
    else:
        c.state.delete(model.TABLES[type_name], row)
    return delete_payload(row["id"])


def generic(type_name: str, verb: str, payload_field: str):
    """The resolver of `<entity><verb>`."""
    def resolve(_: Any, info, **args: Any) -> dict:
        c = ctx(info)
        if verb == "Create":
            return entity_payload(payload_field, new_row(c, type_name, args.get("input") or {}))
        if verb == "Update":
            row = find(c.state, type_name, args["id"])
            return entity_payload(payload_field, update_row(c, type_name, row, dict(args.get("input") or {})))
        if verb == "Delete":
            return delete_row(c, type_name, args["id"])
        return set_archived(c, type_name, args["id"], verb == "Archive")
    return resolve


def bind_mutations(schema: GraphQLSchema) -> None:
    """Generic resolvers for the entity mutations no domain module binds."""
    mutation: GraphQLObjectType = schema.mutation_type  # type: ignore[assignment]
    for type_name in model.TABLES:
        prefix = model.lower_first(type_name)
        for verb, needed in VERBS.items():
            field = mutation.fields.get(prefix + verb)
            if field is None or field.resolve is not None or not needed <= set(field.args):
                continue
            payload_type = get_named_type(field.type)
            payload_field = next((n for n in getattr(payload_type, "fields", {})
                                  if n not in ("success", "lastSyncId")), prefix)
            field.resolve = generic(type_name, verb, payload_field)


def require(value: Any, message: str) -> Any:
    if value in (None, "") or (isinstance(value, str) and not value.strip()):
        raise ApiError(f"Argument Validation Error: {message}")
    return value

