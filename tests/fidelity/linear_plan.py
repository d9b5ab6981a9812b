"""What the fidelity suite asks of the Linear replica: every query and mutation document
`@linear/sdk` ships (the operations its LinearClient sends), with the variables they require
filled from the seed (`linear_default`): an entity's id where one is named (`id`, `teamId`, ...)
and the seed has one, the required fields of an input object, an enum's first value, typical
text and numbers otherwise. Documents that name an entity the seed has none of are counted apart.
Mutations come after the queries, those that remove last.
"""

from __future__ import annotations

import json
import re

from graphql import (GraphQLEnumType, GraphQLInputObjectType, GraphQLList, Undefined, get_named_type, is_non_null_type,
                     parse)
from graphql.language import OperationDefinitionNode

from mock_services.linear.model import TABLES
from mock_services.linear.pack import PACK
from mock_services.linear.router import schema

SEED = "linear_default"
TYPICAL = {"String": "typical", "Int": 1, "Float": 1.0, "Boolean": False, "DateTime": "2030-01-01T00:00:00Z",
           "TimelessDate": "2030-01-01", "JSON": {}, "JSONObject": {}}
ID_NAMES = re.compile(r"^(id|\w+Id)$")


def seed_ids() -> dict[str, str]:
    """The first row's id of each seeded type."""
    tables = json.loads((PACK.templates / f"{SEED}.json").read_text())
    return {kind: tables[table][0]["id"] for kind, table in TABLES.items() if tables.get(table)}


def root_field(document: str) -> tuple[str, str, list]:
    """(operation kind, its first root field's name, the variable definitions)."""
    operation = next(d for d in parse(document).definitions if isinstance(d, OperationDefinitionNode))
    return operation.operation.value, operation.selection_set.selections[0].name.value, \
        list(operation.variable_definitions or [])


def variables_for(field: str, definitions: list, ids: dict[str, str]) -> dict | None:
    """The required variables (and `id`, required or not), or None where one needs an entity the
    seed does not have."""
    returns = get_named_type(schema().query_type.fields[field].type).name
    found = {}
    for definition in definitions:
        name = definition.variable.name.value
        if definition.type.kind != "non_null_type" and name != "id":  # an optional id names the entity asked for
            continue
        kind = definition.type.type if definition.type.kind == "non_null_type" else definition.type
        type_name = getattr(kind, "name", None) and kind.name.value
        if ID_NAMES.match(name) and type_name in ("String", "ID"):
            owner = returns if name == "id" else name[:-2][:1].upper() + name[:-2][1:]
            if owner not in ids:
                return None
            found[name] = ids[owner]
        elif type_name in TYPICAL:
            found[name] = TYPICAL[type_name]
        else:
            return None
    return found


class Unsendable(Exception):
    """The input names an entity the seed has none of."""


VERBS = re.compile(r"(Create|Update|Delete|Archive|Unarchive|Unlink|Link|Add|Remove|Reset|Move|Rotate|Restore|"
                   r"Subscribe|Unsubscribe|Mark\w*|Set\w*)$")
REMOVES = ("Delete", "Archive", "Remove", "Unlink")


def entity_id(name: str, ids: dict[str, str]) -> str:
    owner = name[:-2][:1].upper() + name[:-2][1:]
    if owner not in ids:
        raise Unsendable(owner)
    return ids[owner]


def input_value(name: str, kind, ids: dict[str, str], depth: int = 0):
    """A value of an input type: its required fields only, ids from the seed."""
    inner = kind.of_type if is_non_null_type(kind) else kind
    if isinstance(inner, GraphQLList):
        return [input_value(name, inner.of_type, ids, depth)]
    if ID_NAMES.match(name) and getattr(inner, "name", "") in ("String", "ID"):
        return entity_id(name, ids)
    if isinstance(inner, GraphQLEnumType):
        return next(iter(inner.values))
    if isinstance(inner, GraphQLInputObjectType):
        if depth > 3:
            raise Unsendable(inner.name)
        return {field: input_value(field, spec.type, ids, depth + 1) for field, spec in inner.fields.items()
                if is_non_null_type(spec.type) and spec.default_value is Undefined}
    if inner.name in TYPICAL:
        return TYPICAL[inner.name]
    raise Unsendable(inner.name)


def mutation_variables(field: str, definitions: list, ids: dict[str, str]) -> dict:
    """The required variables of a mutation; `id` is the entity the mutation's name starts with."""
    arguments = schema().mutation_type.fields[field].args
    found = {}
    for definition in definitions:
        name = definition.variable.name.value
        if definition.type.kind != "non_null_type":
            continue
        if name == "id":
            found[name] = entity_id(VERBS.sub("", field) + "Id", ids)
        else:
            found[name] = input_value(name, arguments[name].type, ids)
    return found


def plan(documents: dict[str, str]) -> tuple[list[list], list[str]]:
    """([name, document, variables] for each document the seed can serve, queries first and
    removing mutations last; the names of those it cannot)."""
    ids, queries, mutations, left = seed_ids(), [], [], []
    for name, document in sorted(documents.items()):
        kind, field, definitions = root_field(document)
        try:
            if kind == "query":
                variables = variables_for(field, definitions, ids)
                if variables is None:
                    raise Unsendable(field)
                queries.append([name, document, variables])
            elif kind == "mutation":
                mutations.append([name, document, mutation_variables(field, definitions, ids)])
        except Unsendable:
            left.append(name)
    mutations.sort(key=lambda step: any(verb in step[0] for verb in REMOVES))
    return queries + mutations, left
