"""A Google discovery document as an OpenAPI 3 description, for the generator: Google ships its
APIs' descriptions as discovery documents (inside google-api-python-client's package), and a
pack generated from one is data like any other generated pack.

    python -m mock_services.rest.openapi.from_discovery tasks.v1 OUT.json

Each method becomes an operation (its id the method's id, `tasks.tasks.list`; its path the
method's flat path under the service's root), its parameters and request body as declared, and
its answer the method's response schema (204 where it has none); the schemas are translated
(`$ref` to components, `any` to no constraint).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import googleapiclient

DOCUMENTS = Path(googleapiclient.__file__).parent / "discovery_cache" / "documents"
KEPT = ("type", "format", "enum", "readOnly", "default", "pattern")


def schema(node: dict) -> dict:
    """A discovery schema as an OpenAPI one."""
    if "$ref" in node:
        return {"$ref": f"#/components/schemas/{node['$ref']}"}
    if node.get("type") == "any":
        return {}
    out: dict[str, Any] = {k: node[k] for k in KEPT if k in node}
    if "properties" in node:
        out.setdefault("type", "object")
        out["properties"] = {name: schema(value) for name, value in node["properties"].items()}
    if isinstance(node.get("additionalProperties"), dict):
        out["additionalProperties"] = schema(node["additionalProperties"])
    if "items" in node:
        out["items"] = schema(node["items"])
    return out


def _parameter(name: str, data: dict) -> dict:
    kind = {"integer": "integer", "boolean": "boolean", "number": "number"}.get(data.get("type", ""), "string")
    inner = {"type": kind, **({"enum": data["enum"]} if "enum" in data else {})}
    return {"name": name, "in": data["location"], "required": bool(data.get("required")) or data["location"] == "path",
            "schema": {"type": "array", "items": inner} if data.get("repeated") else inner}


def methods(resource: dict) -> Iterator[dict]:
    yield from resource.get("methods", {}).values()
    for inner in resource.get("resources", {}).values():
        yield from methods(inner)


def _operation(method: dict) -> dict:
    """The method at its flat path, whose placeholders name its path parameters (People's
    `v1/{+resourceName}` is `v1/people/{peopleId}`)."""
    placeholders = re.findall(r"\{([^}]+)\}", method.get("flatPath", method["path"]))
    answer = ({"200": {"description": "ok", "content": {"application/json": {"schema": schema(method["response"])}}}}
              if "response" in method else {"204": {"description": "done"}})
    operation: dict[str, Any] = {
        "operationId": method["id"],
        "parameters": [*({"name": n, "in": "path", "required": True, "schema": {"type": "string"}} for n in placeholders),
                       *(_parameter(n, p) for n, p in method.get("parameters", {}).items() if p["location"] != "path")],
        "responses": {**answer, "default": {"description": "an error", "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/GoogleError"}}}}}}
    if "request" in method:
        operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": schema(method["request"])}}}
    return operation


# Google's error body (https://cloud.google.com/apis/design/errors), which discovery documents leave out.
GOOGLE_ERROR = {"type": "object", "properties": {"error": {"type": "object", "properties": {
    "code": {"type": "integer"}, "message": {"type": "string"}, "status": {"type": "string"},
    "errors": {"type": "array", "items": {"type": "object", "properties": {
        "domain": {"type": "string"}, "reason": {"type": "string"}, "message": {"type": "string"}}}}}}}}


def openapi(document: dict) -> dict:
    paths: dict[str, dict] = {}
    for method in methods(document):
        path = "/" + document.get("servicePath", "") + method.get("flatPath", method["path"])
        paths.setdefault(path, {})[method["httpMethod"].lower()] = _operation(method)
    return {"openapi": "3.0.3",
            "info": {"title": document["title"], "version": document["version"]},
            "servers": [{"url": document["rootUrl"].rstrip("/")}], "paths": paths,
            "components": {"schemas": {**{name: schema(value) for name, value in document["schemas"].items()},
                                       "GoogleError": GOOGLE_ERROR}}}


def main(argv: list[str]) -> None:
    if len(argv) != 2:
        raise SystemExit("usage: python -m mock_services.rest.openapi.from_discovery NAME.VERSION OUT.json")
    source = DOCUMENTS / f"{argv[0]}.json"
    if not source.is_file():
        raise SystemExit(f"no discovery document {argv[0]} in google-api-python-client ({DOCUMENTS})")
    Path(argv[1]).write_text(json.dumps(openapi(json.loads(source.read_text())), indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
