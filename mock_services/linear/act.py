"""A timeline's step in Linear: a mutation (`commentCreate`, `issueUpdate`) with its arguments,
made as the step's person (their API key), through the same schema and resolvers an agent's
request goes through, so it is theirs in the diff and its changes emit webhooks."""

from __future__ import annotations

from typing import Any

from graphql import GraphQLObjectType, get_named_type

from mock_services.linear.router import execute, schema
from mock_services.store import EnvironmentStore


def document(operation: str, args: dict[str, Any]) -> str | None:
    """The mutation's text for the arguments given, selecting each payload entity's id."""
    mutation: GraphQLObjectType = schema().mutation_type  # type: ignore[assignment]
    field = mutation.fields.get(operation)
    if field is None or not set(args) <= set(field.args):
        return None
    declared = ", ".join(f"${name}: {field.args[name].type}" for name in args)
    passed = ", ".join(f"{name}: ${name}" for name in args)
    payload = get_named_type(field.type)
    entities = [name for name, f in getattr(payload, "fields", {}).items()
                if isinstance(get_named_type(f.type), GraphQLObjectType) and "id" in get_named_type(f.type).fields]
    selection = " ".join(["success" if "success" in getattr(payload, "fields", {}) else "__typename",
                          *(f"{name} {{ id }}" for name in entities)])
    return f"mutation{f'({declared})' if declared else ''} {{ {operation}{f'({passed})' if passed else ''} " \
           f"{{ {selection} }} }}"


def act(store: EnvironmentStore, env_id: str, token: str, operation: str, args: dict[str, Any]) -> dict:
    """Linear's answer to the mutation (its payload, `ok` added), or why it could not be made."""
    text = document(operation, args)
    if text is None:
        return {"ok": False, "error": f"Linear has no mutation {operation} taking {', '.join(args) or 'nothing'}"}
    result = execute(store, env_id, {"query": text, "variables": args}, token)
    if result.get("errors"):
        return {"ok": False, "error": result["errors"][0].get("message")}
    return {"ok": True, **result["data"][operation]}
