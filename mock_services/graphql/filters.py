"""The filter language (Linear's, which the engine adopts) evaluated over rows: one evaluator
for every modeled entity.

A filter is `{field: comparator}`, `{relation: filter}` (to-one: the related row must
match; `null: true` asks for no related row), `{collection: {some|every: filter,
length: comparator}}` for to-many relations, or `and`/`or` lists. Which keys are
relations comes from the schema and the pack's entity model, so there is no per-entity filter code.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from graphql import GraphQLList, GraphQLObjectType, GraphQLSchema, get_named_type, get_nullable_type

from mock_services import clock
from mock_services.graphql.entities import EntityModel
from mock_services.graphql.errors import ApiError
from mock_services.store import EnvState, Row

DURATION = re.compile(r"^(-)?P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$")


def moment(value: Any) -> Any:
    """Linear's date comparators take ISO dates or durations relative to now (`-P2W`)."""
    if not isinstance(value, str) or not (match := DURATION.fullmatch(value)) or value in ("P", "-P"):
        return value
    sign, years, months, weeks, days, hours, minutes, seconds = match.groups()
    delta = timedelta(days=int(years or 0) * 365 + int(months or 0) * 30 + int(weeks or 0) * 7 + int(days or 0),
                      hours=int(hours or 0), minutes=int(minutes or 0), seconds=int(seconds or 0))
    when = clock.utcnow() + (-delta if sign else delta)
    return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _ordered(op):
    def compare(v: Any, x: Any) -> bool:
        if v is None or x is None:
            return False
        x = moment(x)
        try:
            return op(v, x)
        except TypeError:
            return op(str(v), str(x))
    return compare


COMPARATORS = {
    "eq": lambda v, x: v == x,
    "neq": lambda v, x: v != x,
    "in": lambda v, x: v in (x or []),
    "nin": lambda v, x: v not in (x or []),
    "lt": _ordered(lambda v, x: v < x),
    "lte": _ordered(lambda v, x: v <= x),
    "gt": _ordered(lambda v, x: v > x),
    "gte": _ordered(lambda v, x: v >= x),
    "null": lambda v, x: (v is None) == bool(x),
    "contains": lambda v, x: _text(x) in _text(v),
    "notContains": lambda v, x: _text(x) not in _text(v),
    "containsIgnoreCase": lambda v, x: _text(x).lower() in _text(v).lower(),
    "notContainsIgnoreCase": lambda v, x: _text(x).lower() not in _text(v).lower(),
    "startsWith": lambda v, x: _text(v).startswith(_text(x)),
    "startsWithIgnoreCase": lambda v, x: _text(v).lower().startswith(_text(x).lower()),
    "notStartsWith": lambda v, x: not _text(v).startswith(_text(x)),
    "endsWith": lambda v, x: _text(v).endswith(_text(x)),
    "notEndsWith": lambda v, x: not _text(v).endswith(_text(x)),
    "eqIgnoreCase": lambda v, x: _text(v).lower() == _text(x).lower(),
    "neqIgnoreCase": lambda v, x: _text(v).lower() != _text(x).lower(),
}


class Filter:
    def __init__(self, state: EnvState, viewer_id: str, schema: GraphQLSchema, model: EntityModel) -> None:
        self.state = state
        self.viewer_id = viewer_id
        self.schema = schema
        self.model = model

    def value(self, type_name: str, row: Row, field: str) -> Any:
        """A row's value for a filter field, including the fields Linear computes."""
        if field == "isMe":
            return row.get("id") == self.viewer_id
        if field == "searchableContent":
            return f"{row.get('title') or ''}\n{row.get('description') or ''}"
        computed = self.model.computed.get((type_name, field))
        return computed(row) if computed else row.get(field)

    def relation(self, type_name: str, field: str) -> tuple[str, bool] | None:
        """(related type, to-many?) if `field` of `type_name` relates modeled entities."""
        owner = self.schema.type_map.get(type_name)
        if not isinstance(owner, GraphQLObjectType) or field not in owner.fields:
            return None
        field_type = owner.fields[field].type
        target = get_named_type(field_type)
        if isinstance(target, GraphQLObjectType) and target.name.endswith("Connection") and "nodes" in target.fields:
            return get_named_type(target.fields["nodes"].type).name, True
        if target.name in self.model.tables:
            return target.name, isinstance(get_nullable_type(field_type), GraphQLList)
        return None

    def matches(self, type_name: str, row: Row | None, spec: dict | None) -> bool:
        if not spec:
            return True
        if row is None:
            return False
        return all(self.condition(type_name, row, key, cond) for key, cond in spec.items() if cond is not None)

    def condition(self, type_name: str, row: Row, key: str, cond: Any) -> bool:
        if key == "and":
            return all(self.matches(type_name, row, s) for s in cond)
        if key == "or":
            return any(self.matches(type_name, row, s) for s in cond)
        if not isinstance(cond, dict):
            raise ApiError(f"Invalid filter on {key}")
        relation = self.relation(type_name, key)
        if relation and relation[0] in self.model.tables:
            target, many = relation
            if many:
                rows = self.model.listed(self.state, type_name, key, target, row)
                return self.collection(target, rows, cond)
            related = self.model.related(self.state, type_name, key, target, row)
            if cond.get("null") is not None:
                if (related is None) != bool(cond["null"]):
                    return False
                return related is None or self.matches(target, related, {k: v for k, v in cond.items() if k != "null"})
            return self.matches(target, related if related is not None else {}, cond)  # absent: its fields are null
        value = self.value(type_name, row, key)
        for op, arg in cond.items():
            if op not in COMPARATORS:
                raise ApiError(f"Unknown comparator {op} on {key}")
            if (arg is not None or op in ("eq", "neq")) and not COMPARATORS[op](value, arg):
                return False
        return True

    def collection(self, target: str, rows: list[Row], cond: dict) -> bool:
        """`some`, `every` and `length` over a to-many relation; other keys mean `some`."""
        direct = {k: v for k, v in cond.items() if k not in ("some", "every", "length")}
        if cond.get("some") is not None and not any(self.matches(target, r, cond["some"]) for r in rows):
            return False
        if cond.get("every") is not None and not all(self.matches(target, r, cond["every"]) for r in rows):
            return False
        if cond.get("length") is not None and not all(
                COMPARATORS[op](len(rows), arg) for op, arg in cond["length"].items() if arg is not None):
            return False
        return not direct or any(self.matches(target, r, direct) for r in rows)

    def apply(self, type_name: str, rows: list[Row], spec: dict | None) -> list[Row]:
        return [r for r in rows if self.matches(type_name, r, spec)]
