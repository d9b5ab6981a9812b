"""What every resolver reads from `info.context`: the environment's state and the viewer."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone

from graphql import GraphQLResolveInfo

from mock_services.linear.errors import not_found
from mock_services.linear.filters import Filter
from mock_services.store import EnvState, Row


@dataclass
class LinearContext:
    state: EnvState
    viewer_id: str
    filters: Filter = field(init=False)

    def __post_init__(self) -> None:
        self.filters = Filter(self.state, self.viewer_id)

    def get(self, table: str, entity: str, row_id: str | None) -> Row:
        row = self.state.first(table, id=row_id) if row_id else None
        if row is None:
            raise not_found(entity)
        return row

    def maybe(self, table: str, row_id: str | None) -> Row | None:
        return self.state.first(table, id=row_id) if row_id else None

    def linked(self, table: str, link_table: str, link_key: str, **link_match: str) -> list[Row]:
        """Rows of `table` joined through a many-to-many table (memberships, label links)."""
        ids = {link[link_key] for link in self.state.rows(link_table, **link_match)}
        return [row for row in self.state.rows(table) if row["id"] in ids]


def ctx(info: GraphQLResolveInfo) -> LinearContext:
    return info.context


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_id() -> str:
    return str(uuid.uuid4())


def payload(entity: str, row: Row) -> dict:
    """Linear's mutation payload: success, a sync id, and the entity."""
    return {"success": True, "lastSyncId": float(time.time()), entity: row}


def deleted(entity_id: str) -> dict:
    return {"success": True, "lastSyncId": float(time.time()), "entityId": entity_id}


def changed(state_row: Row, changes: dict) -> Row:
    """A row with `changes` applied and its updatedAt moved on."""
    return {**state_row, **changes, "updatedAt": now_iso()}
