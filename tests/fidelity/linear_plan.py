"""What the fidelity suite asks of the Linear replica: every query document `@linear/sdk` ships
(the operations its LinearClient sends), with the variables they require filled from the seed
(`linear_default`): an entity's id where the root field returns one the seed has, typical text
and numbers otherwise. Documents whose required input names no seeded entity are counted apart.
"""

from __future__ import annotations

import json
import re

from graphql import get_named_type, parse
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


def plan(documents: dict[str, str]) -> tuple[list[list], list[str]]:
    """([name, document, variables] for each query the seed can answer, the names it cannot)."""
    ids, steps, left = seed_ids(), [], []
    for name, document in sorted(documents.items()):
        kind, field, definitions = root_field(document)
        if kind != "query":
            continue
        variables = variables_for(field, definitions, ids)
        if variables is None:
            left.append(name)
        else:
            steps.append([name, document, variables])
    return steps, left
