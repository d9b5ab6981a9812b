"""The committed generator: GitHub's OpenAPI description (npm `@octokit/openapi`, file
`generated/api.github.com.json`) -> the operation table the GitHub pack routes from.

It keeps, per operation: GitHub's operation id, the method, the path with its placeholders
(and which of them span several segments, GitHub's `x-multi-segment`: a file's path, a ref),
the query and header parameters with their types, enums and defaults, the request body's
content type, the answer's format and the schema of its success answer; and, per schema an
answer may hold, its required fields and which fields hold another schema (for the fidelity
check). It keeps no prose.

    npm pack @octokit/openapi && tar xzf octokit-openapi-*.tgz
    python -m mock_services.github.generate_spec package/generated/api.github.com.json \
        mock_services/github/spec/api.github.com.json
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

METHODS = ("get", "post", "put", "patch", "delete")
SCALARS = {"string", "integer", "boolean", "number"}


def _resolve(description: dict, node: dict) -> dict:
    while "$ref" in node:
        section, name = node["$ref"].split("/")[-2:]
        node = description["components"][section][name]
    return node


def _parameter(description: dict, raw: dict) -> tuple[str, dict[str, Any]]:
    found = _resolve(description, raw)
    schema = _resolve(description, found.get("schema", {}))
    kind = schema.get("type", "string")
    entry: dict[str, Any] = {"location": found["in"]}
    if kind == "array":
        entry["repeated"] = True
        kind = _resolve(description, schema.get("items", {})).get("type", "string")
    if kind in SCALARS and kind != "string":
        entry["type"] = kind
    if found.get("required"):
        entry["required"] = True
    if schema.get("enum") and kind == "string":
        entry["enum"] = [str(v) for v in schema["enum"]]
    if "default" in schema and not isinstance(schema["default"], dict | list):
        entry["default"] = str(schema["default"]).lower() if isinstance(schema["default"], bool) else str(
            schema["default"])
    if found.get("x-multi-segment"):
        entry["multiSegment"] = True
    return found["name"], entry


def _schema_name(schema: dict) -> str | None:
    """`#/components/schemas/repository` -> "repository"; an array of them -> "repository[]"."""
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    if schema.get("type") == "array" and "$ref" in schema.get("items", {}):
        return schema["items"]["$ref"].rsplit("/", 1)[-1] + "[]"
    return None


def _answer(operation: dict) -> tuple[str, str | None]:
    """The success answer's format (json, no_content, binary) and schema."""
    for status in ("200", "201", "202", "204", "302"):
        response = operation["responses"].get(status)
        if response is None:
            continue
        content = response.get("content", {})
        if not content:
            return ("no_content" if status == "204" else "redirect" if status == "302" else "json"), None
        media = "application/json" if "application/json" in content else next(iter(content))
        fmt = "json" if "json" in media else "binary"
        return fmt, _schema_name(content[media].get("schema", {}))
    return "json", None


def operations(description: dict) -> list[dict[str, Any]]:
    found = []
    for path, item in description["paths"].items():
        shared = item.get("parameters", [])
        for method in METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            parameters = dict(_parameter(description, p) for p in [*shared, *operation.get("parameters", [])])
            # A path placeholder's name is not on the wire; `{enterprise-team}` becomes a name
            # the engine can match by (`enterprise_team`).
            parameters = {(n.replace("-", "_") if p["location"] == "path" else n): p for n, p in parameters.items()}
            path = re.sub(r"\{([^}]+)\}", lambda m: "{" + m.group(1).replace("-", "_") + "}", path)
            body = operation.get("requestBody", {}).get("content", {})
            content_type = "application/json" if not body or "application/json" in body else next(iter(body))
            fmt, response = _answer(operation)
            entry: dict[str, Any] = {"id": "github." + operation["operationId"], "method": method.upper(),
                                     "path": path.lstrip("/"), "parameters": parameters,
                                     "contentType": content_type, "format": fmt}
            if response:
                entry["response"] = response
            found.append(entry)
    return sorted(found, key=lambda o: o["id"])


def _shape(description: dict, schema: dict) -> dict[str, Any]:
    """A schema's required fields, which of its fields are objects of a named schema, and the
    shapes of the objects it describes in place."""
    schema = _resolve(description, schema) if "$ref" in schema else schema
    shape: dict[str, Any] = {"required": sorted(schema.get("required", [])), "objects": {}}
    for part in schema.get("allOf", []):
        inner = _shape(description, part)
        shape["required"] = sorted({*shape["required"], *inner["required"]})
        shape["objects"].update(inner["objects"])
    for name, field in schema.get("properties", {}).items():
        refs = [field] + field.get("allOf", []) + field.get("anyOf", []) + [field.get("items", {})]
        named = next((_schema_name(r) for r in refs if "$ref" in r), None)
        inline = field.get("items", field) if field.get("type") == "array" else field
        if named:
            shape["objects"][name] = named
        elif inline.get("properties"):  # an object described in place (a pull request's `_links`)
            shape.setdefault("inline", {})[name] = _shape(description, inline)
    return shape


def schemas(description: dict, found: list[dict[str, Any]]) -> dict[str, Any]:
    """The shapes of every success answer's schema and of the schemas they hold (what a fidelity
    check compares an answer with), no more of the description."""
    pending = sorted({o["response"].removesuffix("[]") for o in found if o.get("response")})
    kept: dict[str, Any] = {}
    while pending:
        name = pending.pop()
        if name in kept:
            continue
        kept[name] = _shape(description, description["components"]["schemas"][name])
        pending.extend(n for n in kept[name]["objects"].values() if n not in kept)
    return dict(sorted(kept.items()))


def generate(description: dict) -> dict[str, Any]:
    found = operations(description)
    return {"generated_from": f"@octokit/openapi api.github.com.json, GitHub REST {description['info']['version']}",
            "name": "github", "version": description["info"]["version"], "servicePath": "", "batchPath": None,
            "parameters": {}, "operations": found, "schemas": schemas(description, found)}


def main(argv: list[str]) -> None:
    if len(argv) != 2:
        raise SystemExit("usage: python -m mock_services.github.generate_spec API.GITHUB.COM.JSON OUT.json")
    description = json.loads(Path(argv[0]).read_text())
    Path(argv[1]).write_text(json.dumps(generate(description), indent=1, sort_keys=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
