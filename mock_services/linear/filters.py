"""Linear's filter objects evaluated over rows, driven by one relation table.

A filter is `{field: comparator}`, `{relation: filter}` or `and`/`or` lists; the same
evaluator serves every entity, so there is no per-entity filter code.
"""

from __future__ import annotations

from typing import Any

from mock_services.store import EnvState, Row

# entity table -> relation field -> (related table, foreign key column)
RELATIONS: dict[str, dict[str, tuple[str, str]]] = {
    "issues": {
        "team": ("teams", "teamId"),
        "state": ("workflow_states", "stateId"),
        "assignee": ("users", "assigneeId"),
        "creator": ("users", "creatorId"),
    },
    "workflow_states": {"team": ("teams", "teamId")},
    "issue_labels": {"team": ("teams", "teamId")},
    "comments": {"issue": ("issues", "issueId"), "user": ("users", "userId")},
}


def _text(value: Any) -> str:
    return "" if value is None else str(value)


COMPARATORS = {
    "eq": lambda v, x: v == x,
    "neq": lambda v, x: v != x,
    "in": lambda v, x: v in x,
    "nin": lambda v, x: v not in x,
    "lt": lambda v, x: v is not None and v < x,
    "lte": lambda v, x: v is not None and v <= x,
    "gt": lambda v, x: v is not None and v > x,
    "gte": lambda v, x: v is not None and v >= x,
    "contains": lambda v, x: x in _text(v),
    "notContains": lambda v, x: x not in _text(v),
    "startsWith": lambda v, x: _text(v).startswith(x),
    "endsWith": lambda v, x: _text(v).endswith(x),
    "eqIgnoreCase": lambda v, x: _text(v).lower() == x.lower(),
    "containsIgnoreCase": lambda v, x: x.lower() in _text(v).lower(),
}


class Filter:
    def __init__(self, state: EnvState, viewer_id: str) -> None:
        self.state = state
        self.viewer_id = viewer_id

    def value(self, table: str, row: Row, field: str) -> Any:
        if table == "users" and field == "isMe":
            return row["id"] == self.viewer_id
        return row.get(field)

    def matches(self, table: str, row: Row | None, spec: dict | None) -> bool:
        if not spec:
            return True
        if row is None:
            return False
        for key, cond in spec.items():
            if key == "and" and not all(self.matches(table, row, s) for s in cond):
                return False
            if key == "or" and not any(self.matches(table, row, s) for s in cond):
                return False
            if key in ("and", "or"):
                continue
            relation = RELATIONS.get(table, {}).get(key)
            if relation:
                related_table, fk = relation
                related = self.state.first(related_table, id=row.get(fk)) if row.get(fk) else None
                if not self.matches(related_table, related, cond):
                    return False
            elif not all(COMPARATORS[op](self.value(table, row, key), arg)
                         for op, arg in cond.items() if arg is not None or op in ("eq", "neq")):
                return False
        return True

    def apply(self, table: str, rows: list[Row], spec: dict | None) -> list[Row]:
        return [r for r in rows if self.matches(table, r, spec)]
