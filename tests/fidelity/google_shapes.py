"""Whether an answer has the shape a Google discovery document gives its response schema (only
the document's fields, each of its type, int64s as digit strings), and whether a failure is in
Google's error shape."""

from __future__ import annotations

import json

TYPES = {"string": str, "boolean": bool, "integer": int, "number": (int, float), "object": dict, "array": list}


def conforms(value, schema: dict, schemas: dict, path: str = "") -> list[str]:
    """Where `value` leaves the schema: unknown fields, wrong types."""
    if "$ref" in schema:
        return conforms(value, schemas[schema["$ref"]], schemas, path)
    kind = schema.get("type")
    if kind == "string" and schema.get("format") in ("int64", "uint64"):
        return [] if isinstance(value, str) and value.lstrip("-").isdigit() else [f"{path}: not an int64 string"]
    if kind in TYPES and not isinstance(value, TYPES[kind]) or kind == "integer" and isinstance(value, bool):
        return [f"{path}: {type(value).__name__} where the document says {kind}"]
    problems = []
    if kind == "object" and isinstance(value, dict):
        properties = schema.get("properties", {})
        for name, item in value.items():
            if name in properties:
                problems += conforms(item, properties[name], schemas, f"{path}.{name}")
            elif isinstance(schema.get("additionalProperties"), dict):
                problems += conforms(item, schema["additionalProperties"], schemas, f"{path}.{name}")
            else:
                problems.append(f"{path}.{name}: not in the document")
    if kind == "array" and isinstance(value, list):
        for i, item in enumerate(value):
            problems += conforms(item, schema.get("items", {}), schemas, f"{path}[{i}]")
    return problems


def google_shaped(response, unkept: bool = False) -> None:
    """A replica's answer is below 500 (or 501 for a method it keeps no state for, when
    `unkept`), and in Google's error shape where it fails."""
    assert response.status_code < 500 or unkept and response.status_code == 501, response.text
    if response.status_code >= 400:
        error = response.json()["error"]
        assert error["code"] == response.status_code and error["errors"][0]["reason"]


def random_call(client, base: str, operation, path_values: list[str], query: dict, body,
                unkept: frozenset[str] = frozenset()) -> None:
    """One fuzzed call of `operation` below `base`: its path filled from `path_values`, `body`
    sent as JSON (or as the bytes it is); the answer must be `google_shaped`."""
    path = operation.path
    for i, name in enumerate(p for p in operation.parameters.values() if p.location == "path"):
        path = path.replace("{" + name.name + "}", path_values[i])
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    google_shaped(client.request(operation.method, f"{base}/{path}", params=query, content=content,
                                 headers={"Authorization": "Bearer ya29.fuzz", "Content-Type": "application/json"}),
                  unkept=operation.short_id in unkept)
