"""Which of a GraphQL API's types the replica keeps rows for, and how those rows point at each
other: one table drives field resolution, filters and mutations alike.

Relations follow a naming convention, so most need no entry: `Issue.assignee` is the row whose
id is in `assigneeId`, and `Team.issues` are the rows whose `teamId` is the team's id. A pack
lists only the exceptions (its model.py holds one `EntityModel`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mock_services.graphql.errors import not_found
from mock_services.store import EnvState, Row

Key = tuple[str, str]  # (type, field)


def lower_first(name: str) -> str:
    return name[:1].lower() + name[1:]


@dataclass(frozen=True)
class EntityModel:
    tables: dict[str, str]                                   # GraphQL type -> table
    foreign_keys: dict[Key, str] = field(default_factory=dict)        # to-one column, where not `<field>Id`
    back_references: dict[Key, str] = field(default_factory=dict)     # to-many column, where not `<type>Id`
    links: dict[Key, tuple[str, str, str]] = field(default_factory=dict)  # many-to-many: table, this, other
    computed: dict[Key, Callable[[Row], Any]] = field(default_factory=dict)  # fields computed from a row
    singletons: dict[str, str] = field(default_factory=dict)           # type -> the table of its one row
    singleton_lists: dict[Key, str] = field(default_factory=dict)     # fields of a singleton listing a table
    alternate_keys: dict[str, tuple[str, ...]] = field(default_factory=dict)  # lookups beyond `id`
    key_forms: dict[str, Callable[[str], str]] = field(default_factory=dict)   # column -> how a key is written

    def foreign_key(self, type_name: str, field_name: str) -> str:
        return self.foreign_keys.get((type_name, field_name), f"{field_name}Id")

    def back_reference(self, type_name: str, field_name: str) -> str:
        return self.back_references.get((type_name, field_name), f"{lower_first(type_name)}Id")

    def related(self, state: EnvState, type_name: str, field_name: str, target: str, row: Row) -> Row | None:
        """The row a to-one field names (`Issue.team`), or None."""
        if target in self.singletons:
            return state.first(self.singletons[target])
        ref = row.get(self.foreign_key(type_name, field_name))
        return state.first(self.tables[target], id=ref) if isinstance(ref, str) and ref else None

    def listed(self, state: EnvState, type_name: str, field_name: str, target: str, row: Row) -> list[Row]:
        """The rows a to-many field lists (`Team.issues`, `Issue.labels`), before filters and paging."""
        table = self.tables[target]
        if self.singleton_lists.get((type_name, field_name)) == table:
            return state.rows(table)
        link = self.links.get((type_name, field_name))
        if link:
            link_table, this_side, other_side = link
            ids = {entry[other_side] for entry in state.rows(link_table, **{this_side: row.get("id")})}
            return [r for r in state.rows(table) if r.get("id") in ids]
        return state.rows(table, **{self.back_reference(type_name, field_name): row.get("id")})

    def find(self, state: EnvState, type_name: str, ref: Any) -> Row:
        """A row of a modeled type by id (or an alternate key), else 'Entity not found'."""
        table = self.tables[type_name]
        found = state.first(table, id=ref) if isinstance(ref, str) and ref else None
        for column in self.alternate_keys.get(type_name, ()):
            if found is None and isinstance(ref, str) and ref:
                found = state.first(table, **{column: self.key_forms.get(column, str)(ref)})
        if found is None:
            raise not_found(type_name)
        return found
