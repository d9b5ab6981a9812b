"""What every resolver reads from `info.context`: the environment's state and the viewer."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from graphql import GraphQLResolveInfo, GraphQLSchema

from mock_services.linear.filters import Filter
from mock_services.linear.model import now_iso
from mock_services.store import EnvState, Row


@dataclass
class LinearContext:
    state: EnvState
    viewer_id: str
    schema: GraphQLSchema
    filters: Filter = field(init=False)

    def __post_init__(self) -> None:
        self.filters = Filter(self.state, self.viewer_id, self.schema)


def ctx(info: GraphQLResolveInfo) -> LinearContext:
    return info.context


def new_id() -> str:
    return str(uuid.uuid4())


def changed(state_row: Row, changes: dict) -> Row:
    """A row with `changes` applied and its updatedAt moved on."""
    return {**state_row, **changes, "updatedAt": now_iso()}
