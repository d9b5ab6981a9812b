"""The committed generator: a Google discovery document (as a package the project installs
ships it) -> the spec file a REST pack routes from. It keeps names, types, locations,
requirements, enums and schema shapes, and drops every description.

    python -m mock_services.rest.discovery calendar v3 mock_services/calendar/spec/calendar_v3.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

PARAMETER_KEYS = ("location", "type", "required", "repeated", "enum", "default")
SCHEMA_KEYS = ("type", "$ref", "format", "enum", "items", "properties", "additionalProperties", "readOnly")


def installed_document(name: str, version: str) -> dict:
    """The document google-api-python-client ships (its discovery cache)."""
    import googleapiclient
    path = Path(googleapiclient.__file__).parent / "discovery_cache" / "documents" / f"{name}.{version}.json"
    if not path.is_file():
        raise SystemExit(f"no discovery document {path.name} in google-api-python-client: pip install it")
    return json.loads(path.read_text())


def _parameter(data: dict) -> dict:
    return {k: data[k] for k in PARAMETER_KEYS if k in data}


def _schema(data: Any) -> Any:
    """A schema's shape, recursively, without prose."""
    if not isinstance(data, dict):
        return data
    kept = {k: data[k] for k in SCHEMA_KEYS if k in data}
    if "properties" in kept:
        kept["properties"] = {n: _schema(p) for n, p in kept["properties"].items()}
    for key in ("items", "additionalProperties"):
        if isinstance(kept.get(key), dict):
            kept[key] = _schema(kept[key])
    return kept


def _methods(resources: dict) -> list[dict]:
    found = []
    for resource in resources.values():
        for method in resource.get("methods", {}).values():
            found.append({"id": method["id"], "method": method["httpMethod"], "path": method["path"],
                          "parameters": {n: _parameter(p) for n, p in sorted(method.get("parameters", {}).items())},
                          "request": method.get("request", {}).get("$ref"),
                          "response": method.get("response", {}).get("$ref")})
        found += _methods(resource.get("resources", {}))
    return sorted(found, key=lambda m: m["id"])


def generate(document: dict) -> str:
    spec = {
        "generated_from": f"Google discovery document {document['id']} (revision {document.get('revision')})",
        "name": document["name"], "version": document["version"],
        "servicePath": document["servicePath"], "batchPath": document.get("batchPath"),
        "parameters": {n: _parameter(p) for n, p in sorted(document.get("parameters", {}).items())},
        "operations": _methods(document["resources"]),
        "schemas": {n: _schema(s) for n, s in sorted(document["schemas"].items())},
    }
    return json.dumps(spec, indent=1, sort_keys=False) + "\n"


def main(argv: list[str]) -> None:
    name, version, output = argv
    Path(output).write_text(generate(installed_document(name, version)))


if __name__ == "__main__":
    main(sys.argv[1:])
