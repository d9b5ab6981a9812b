"""An OpenAPI 3.x description cut down to what a replica routes and checks: the kept paths'
operations (parameters, request bodies, responses; references to shared parameters, bodies and
responses inlined) and only the component schemas they reach, with every piece of prose
(descriptions, summaries, examples, docs links) dropped. The engine, the request validator
and the property-based tests all read this one trimmed document."""

from __future__ import annotations

import re
from typing import Any

METHODS = ("get", "post", "put", "patch", "delete")
SCHEMA_KEYS = {"type", "format", "enum", "items", "properties", "required", "additionalProperties", "anyOf",
               "oneOf", "allOf", "nullable", "$ref", "maxLength", "minLength", "minimum", "maximum", "maxItems",
               "minItems", "default", "readOnly", "writeOnly", "x-expandableFields", "not", "const"}
PARAMETER_KEYS = {"name", "in", "required", "schema", "style", "explode", "deprecated"}
REF = "#/components/"


def _resolve(document: dict, node: Any) -> Any:
    """A `$ref` to components/parameters, requestBodies or responses, followed (schemas stay refs)."""
    seen = 0
    while isinstance(node, dict) and "$ref" in node and not node["$ref"].startswith(REF + "schemas/"):
        if not node["$ref"].startswith(REF):
            raise ValueError(f"only local references are supported, not {node['$ref']!r}")
        kind, _, name = node["$ref"][len(REF):].partition("/")
        node = document["components"][kind][name.replace("~1", "/").replace("~0", "~")]
        seen += 1
        if seen > 20:
            raise ValueError("a reference cycle among components")
    return node


def schema(node: Any) -> Any:
    """A schema's shape, recursively, without prose."""
    if isinstance(node, list):
        return [schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    kept = {k: v for k, v in node.items() if k in SCHEMA_KEYS}
    for key in ("items", "additionalProperties", "not"):
        if isinstance(kept.get(key), dict):
            kept[key] = schema(kept[key])
    for key in ("anyOf", "oneOf", "allOf"):
        if key in kept:
            kept[key] = [schema(s) for s in kept[key]]
    if "properties" in kept:
        kept["properties"] = {n: schema(p) for n, p in kept["properties"].items()}
    return kept


def _content(document: dict, content: dict) -> dict:
    kept = {}
    for media, body in content.items():
        entry: dict[str, Any] = {"schema": schema(body.get("schema", {}))}
        if body.get("encoding"):
            entry["encoding"] = {n: {k: v for k, v in e.items() if k in ("style", "explode", "contentType")}
                                 for n, e in body["encoding"].items()}
        kept[media] = entry
    return kept


def _parameter(document: dict, node: dict) -> dict:
    node = _resolve(document, node)
    kept = {k: v for k, v in node.items() if k in PARAMETER_KEYS}
    kept["schema"] = schema(node.get("schema", {"type": "string"}))
    return kept


def _operation(document: dict, path_item: dict, method: str, path: str) -> dict:
    node = path_item[method]
    parameters = {(p["name"], p["in"]): p for p in map(lambda n: _parameter(document, n),
                                                        [*path_item.get("parameters", []),
                                                         *node.get("parameters", [])]) if p["in"] != "cookie"}
    words = re.sub(r"[{}]", "", path).replace("/", "_").strip("_")
    kept: dict[str, Any] = {"operationId": node.get("operationId") or f"{method}_{words}",
                            "parameters": list(parameters.values())}
    if "requestBody" in node:
        body = _resolve(document, node["requestBody"])
        kept["requestBody"] = {"required": body.get("required", False),
                               "content": _content(document, body.get("content", {}))}
    responses = {}
    for status, response in node.get("responses", {}).items():
        response = _resolve(document, response)
        responses[str(status)] = {"description": "", **({"content": _content(document, response["content"])}
                                                        if response.get("content") else {})}
    kept["responses"] = responses or {"default": {"description": ""}}
    return kept


def _references(node: Any, into: set[str]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(REF + "schemas/"):
            into.add(ref[len(REF + "schemas/"):])
        for value in node.values():
            _references(value, into)
    elif isinstance(node, list):
        for value in node:
            _references(value, into)


def _server(server: dict) -> dict:
    """A server's url, and its variables' defaults (`https://{subdomain}.zendesk.com` needs them)."""
    variables = {name: {k: v for k, v in variable.items() if k in ("default", "enum")}
                 for name, variable in server.get("variables", {}).items()}
    return {"url": server["url"], **({"variables": variables} if variables else {})}


def _pointed(document: dict, ref: str) -> Any:
    """What a JSON pointer below a component schema names (`#/components/schemas/Tag/allOf/0`)."""
    node: Any = document
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def _inline_deep_refs(document: dict, node: Any) -> Any:
    """`node` with references into a component's inside (PagerDuty's `schemas/Tag/allOf/0`,
    `responses/Conflict/content/application~1json/schema`) replaced by what they point to, so
    every reference left names a whole component."""
    if isinstance(node, list):
        return [_inline_deep_refs(document, n) for n in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(REF) and ref[len(REF):].count("/") > 1:
        return _inline_deep_refs(document, _pointed(document, ref))
    return {k: _inline_deep_refs(document, v) for k, v in node.items()}


def trim(document: dict, include: str | None = None, servers: list[str] | None = None) -> dict:
    """The trimmed description: paths matching `include` (a regex; all where None)."""
    if not str(document.get("openapi", "")).startswith("3."):
        raise ValueError(f"not an OpenAPI 3.x description (openapi: {document.get('openapi')!r})")
    document = _inline_deep_refs(document, document)
    wanted = re.compile(include) if include else None
    paths = {}
    for path, item in sorted(document.get("paths", {}).items()):
        if wanted and not wanted.search(path):
            continue
        operations = {m: _operation(document, item, m, path) for m in METHODS if m in item}
        if operations:
            paths[path] = operations
    if not paths:
        raise ValueError(f"no path of the description matches {include!r}")
    all_schemas = document.get("components", {}).get("schemas", {})
    used: set[str] = set()
    _references(paths, used)
    todo = list(used)
    while todo:  # schemas the used ones reach
        found: set[str] = set()
        _references(all_schemas.get(todo.pop(), {}), found)
        todo += sorted(found - used)
        used |= found
    missing = sorted(n for n in used if n not in all_schemas)
    if missing:
        raise ValueError(f"schemas referenced but not defined: {', '.join(missing)}")
    return {"openapi": document["openapi"],
            "info": {"title": document.get("info", {}).get("title", ""),
                     "version": document.get("info", {}).get("version", "")},
            "servers": [{"url": u} for u in servers] if servers else [_server(s) for s in document.get("servers", [])],
            "paths": paths, "components": {"schemas": {n: schema(all_schemas[n]) for n in sorted(used)}}}
