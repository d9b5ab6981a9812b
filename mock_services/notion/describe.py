"""Writes spec/notion.openapi.json: an OpenAPI 3.0 description of Notion's API derived from its
official Node client, because Notion publishes none of its own.

    python -m mock_services.notion.describe     # needs tests/node_clients installed (`make test` does)

Two parts of npm `@notionhq/client` (tests/node_clients) are read, nothing is copied by hand:
- its endpoint table (build/src/api-endpoints: each endpoint's method, path, and the names of its
  path, query and body parameters), loaded with Node;
- its TypeScript types (`XParameters`, `XResponse`), turned into JSON Schema by
  `ts-json-schema-generator` (a devDependency there), then into OpenAPI 3.0's dialect
  (`const` as a one-value enum, `T | null` as nullable).
Only the error body is written here: the client's types describe no error body, but its error
class reads `{object: "error", status, code, message}` with `code` one of its APIErrorCode values,
which are read from the client too (and `missing_version`, Notion's answer to a request without
the Notion-Version header, which no client sends). The families kept are the ones the replica serves (ENDPOINTS);
`python -m mock_services.rest.openapi notion spec/notion.openapi.json ...` then makes the pack.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import unquote

HERE = Path(__file__).parent
NODE_CLIENTS = HERE.parents[1] / "tests" / "node_clients"
CLIENT = NODE_CLIENTS / "node_modules" / "@notionhq" / "client"
OUTPUT = HERE / "spec" / "notion.openapi.json"
ENDPOINTS = ("getSelf", "getUser", "listUsers", "createPage", "getPage", "updatePage", "createDatabase",
             "getDatabase", "updateDatabase", "createDataSource", "getDataSource", "updateDataSource",
             "queryDataSource", "getBlock", "updateBlock", "deleteBlock", "listBlockChildren",
             "appendBlockChildren", "search")
LEGACY_VERSION = "2022-06-28"  # what notion-client 2 and @notionhq/client 2 to 4 send
ERROR_STATUSES = ("400", "401", "403", "404", "409", "429", "500", "503")

DUMP_ENDPOINTS = """
const e = require("@notionhq/client/build/src/api-endpoints");
const { APIErrorCode } = require("@notionhq/client/build/src/errors");
const { version } = require("@notionhq/client/package.json");
const { Client } = require("@notionhq/client");
const named = new Proxy({}, { get: (_, k) => "{" + String(k) + "}" });
const out = {};
for (const [name, v] of Object.entries(e)) {
  if (v && typeof v === "object" && v.method && typeof v.path === "function")
    out[name] = { method: v.method, path: v.path(named), pathParams: v.pathParams,
                  queryParams: v.queryParams, bodyParams: v.bodyParams };
}
console.log(JSON.stringify({ version, endpoints: out, codes: Object.values(APIErrorCode),
                            notionVersion: Client.defaultNotionVersion }));
"""


def _node(args: list[str]) -> str:
    if not CLIENT.is_dir():
        raise SystemExit(f"no @notionhq/client in {NODE_CLIENTS}: run `npm install` there")
    done = subprocess.run(args, cwd=NODE_CLIENTS, capture_output=True, text=True, timeout=600)
    if done.returncode:
        raise SystemExit(f"{' '.join(args[:2])} failed: {done.stderr[-2000:]}")
    return done.stdout


def client_types() -> dict[str, Any]:
    """Every type of the client's endpoint modules as JSON Schema definitions, by type name."""
    out = _node(["npx", "--no-install", "ts-json-schema-generator", "--path",
                 str(CLIENT / "build" / "src" / "api-endpoints.d.ts"), "--type", "*", "--expose", "all",
                 "--no-type-check", "--additional-properties"])
    return json.loads(out)["definitions"]


def name_of(ref: str) -> str:
    """A definition's name as a component name (the generator URL-encodes `Record<string,X>`)."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", unquote(ref.rsplit("/", 1)[-1]))


NULL = {"enum": [None], "nullable": True}


def openapi_schema(node: Any) -> Any:
    """JSON Schema (draft 7, as ts-json-schema-generator writes it) in OpenAPI 3.0's dialect."""
    if isinstance(node, list):
        return [openapi_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$ref":
            out[key] = "#/components/schemas/" + name_of(value)
        elif key == "const":
            out["enum"] = [value]
        elif key in ("properties", "definitions"):
            out[key] = {n: openapi_schema(v) for n, v in value.items()}
        elif key in ("description", "deprecated", "$schema", "$comment", "propertyNames"):
            continue  # prose, and what OpenAPI 3.0 has no word for
        elif key == "type" and isinstance(value, list):
            kinds = [k for k in value if k != "null"]
            if len(kinds) == 1:
                out["type"] = kinds[0]
            else:
                out["anyOf"] = [{"type": k} for k in kinds]
            if "null" in value:
                out["nullable"] = True
        elif key == "items" and isinstance(value, list):  # a tuple: any of its members
            out["items"] = {"anyOf": openapi_schema(value)}
        else:
            out[key] = openapi_schema(value)
    if out.get("type") == "null":
        return dict(NULL)
    for key in ("anyOf", "oneOf"):
        if key in out:  # `T | null`: the null member as OpenAPI 3.0 says it
            out[key] = [dict(NULL) if o.get("type") == "null" else o for o in out[key]]
    if "enum" in out and "type" not in out and all(isinstance(v, str) for v in out["enum"]):
        out["type"] = "string"
    return out


def _object(types: dict, node: dict) -> dict:
    """A Parameters type's object (a reference followed)."""
    seen = 0
    while "$ref" in node and seen < 10:
        node = types[name_of(node["$ref"])]
        seen += 1
    return node


def _picked(types: dict, node: dict, names: list[str]) -> dict:
    """The part of a Parameters type (path, query and body together) that `names` are: one object,
    or each member of a union cut alike."""
    node = _object(types, node)
    for key in ("anyOf", "oneOf"):
        if key in node:
            return {key: [_picked(types, o, names) for o in node[key]]}
    props = node.get("properties", {})
    return {"type": "object", "properties": {n: props.get(n, {}) for n in names},
            "required": [n for n in node.get("required", []) if n in names]}


def operation(name: str, endpoint: dict, types: dict, version: str) -> dict:
    parameters_type = types.get(name[0].upper() + name[1:] + "Parameters", {"type": "object"})
    pieces = openapi_schema(_picked(types, parameters_type, endpoint["queryParams"]))
    query = pieces.get("properties", {}) if "properties" in pieces else {}
    parameters = [{"name": p, "in": "path", "required": True, "schema": {"type": "string"}}
                  for p in endpoint["pathParams"]]
    parameters += [{"name": p, "in": "query", "required": p in pieces.get("required", []),
                    "schema": query.get(p) or {"type": "string"},
                    **({"style": "form", "explode": True} if query.get(p, {}).get("type") == "array" else {})}
                   for p in endpoint["queryParams"]]
    # The client sends its version with every request, and Notion refuses one without it. The
    # version before data sources is named too: clients older than this one send it.
    parameters.append({"name": "Notion-Version", "in": "header", "required": True,
                       "schema": {"type": "string", "enum": [version, LEGACY_VERSION]}})
    answer = {"$ref": f"#/components/schemas/{name[0].upper() + name[1:]}Response"}
    found: dict[str, Any] = {"operationId": name, "parameters": parameters,
                             "responses": {"200": {"description": "", "content": {"application/json": {
                                 "schema": answer}}}}}
    for status in ERROR_STATUSES:
        found["responses"][status] = {"description": "", "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/APIErrorResponse"}}}}
    if endpoint["bodyParams"]:
        found["requestBody"] = {"required": True, "content": {"application/json": {
            "schema": openapi_schema(_picked(types, parameters_type, endpoint["bodyParams"]))}}}
    return found


def describe() -> dict:
    dumped = json.loads(_node(["node", "-e", DUMP_ENDPOINTS]))
    types = {name_of(n): t for n, t in client_types().items()}
    paths: dict[str, dict] = {}
    for name in ENDPOINTS:
        endpoint = dumped["endpoints"][name]
        paths.setdefault("/v1/" + endpoint["path"], {})[endpoint["method"]] = operation(name, endpoint, types, dumped["notionVersion"])
    schemas = {n: openapi_schema(t) for n, t in sorted(types.items())}
    schemas["APIErrorResponse"] = {
        "type": "object", "required": ["object", "status", "code", "message"],
        "properties": {"object": {"type": "string", "enum": ["error"]}, "status": {"type": "integer"},
                       "code": {"type": "string", "enum": [*dumped["codes"], "missing_version"]}, "message": {"type": "string"},
                       "request_id": {"type": "string"}, "additional_data": {"type": "object"}}}
    return {"openapi": "3.0.3",
            "info": {"title": f"Notion API (from @notionhq/client {dumped['version']}'s types)",
                     "version": dumped["notionVersion"]},  # the Notion-Version header it sends
            "servers": [{"url": "https://api.notion.com"}],
            "paths": dict(sorted(paths.items())),
            "components": {"schemas": json.loads(json.dumps(schemas).replace(
                '"#/definitions/', '"#/components/schemas/'))}}


def main() -> None:
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    document = describe()
    OUTPUT.write_text(json.dumps(document, indent=1) + "\n")
    print(f"wrote {OUTPUT}: {sum(len(v) for v in document['paths'].values())} operations, "
          f"{len(document['components']['schemas'])} schemas")


if __name__ == "__main__":
    sys.exit(main())
