"""What every resolver reads from `info.context`: the environment's state, the viewer, the
schema, the pack's entity model, and the filters over them."""

from __future__ import annotations

from dataclasses import dataclass, field

from graphql import GraphQLResolveInfo, GraphQLSchema

from mock_services import clock
from mock_services.graphql.entities import EntityModel
from mock_services.graphql.filters import Filter
from mock_services.store import EnvState


@dataclass
class GraphQLContext:
    state: EnvState
    viewer_id: str
    schema: GraphQLSchema
    model: EntityModel
    filters: Filter = field(init=False)

    def __post_init__(self) -> None:
        self.filters = Filter(self.state, self.viewer_id, self.schema, self.model)


def ctx(info: GraphQLResolveInfo) -> GraphQLContext:
    return info.context


def new_id() -> str:
    return str(clock.uuid4())
