"""An API's operations as a table: what the engine routes and checks, read from a generated
spec file (names and types only, as the vendor's description has them)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

Location = Literal["path", "query", "header"]


@dataclass(frozen=True)
class Parameter:
    name: str
    location: Location
    type: str = "string"              # string, integer, boolean, number
    required: bool = False
    repeated: bool = False
    enum: tuple[str, ...] = ()
    default: str | None = None
    comma_list: bool = False          # one value of comma-separated items, each of `type` (Box's lists)
    multi_segment: bool = False       # a path placeholder that spans segments (GitHub's file paths and refs)


@dataclass(frozen=True)
class Operation:
    id: str                           # the vendor's method id, e.g. calendar.events.list
    method: str                       # GET, POST, ...
    path: str                         # below the service path, with {placeholders}
    parameters: dict[str, Parameter] = field(default_factory=dict)
    request: str | None = None        # the request body's schema
    response: str | None = None       # the response's schema
    content_type: str = "application/json"  # how the request's body is encoded
    answer_format: str = "json"       # json, binary or no_content

    @property
    def short_id(self) -> str:
        """`events.list` for `calendar.events.list`: what handlers are registered under."""
        return self.id.split(".", 1)[1]

    def required(self) -> list[Parameter]:
        return [p for p in self.parameters.values() if p.required]

    def headers(self) -> list[Parameter]:
        return [p for p in self.parameters.values() if p.location == "header"]


@dataclass(frozen=True)
class Spec:
    name: str
    version: str
    service_path: str                 # e.g. "/calendar/v3"; "" where operations carry whole paths
    batch_path: str | None
    operations: tuple[Operation, ...]
    common: dict[str, Parameter]      # parameters every operation takes (fields, alt, ...)
    schemas: dict[str, Any]           # schema name -> {"type", "properties": {name: type}}

    def operation(self, short_id: str) -> Operation:
        return next(o for o in self.operations if o.short_id == short_id)


def _parameter(name: str, data: dict) -> Parameter:
    return Parameter(name, data["location"], data.get("type", "string"), data.get("required", False),
                     data.get("repeated", False), tuple(data.get("enum", ())), data.get("default"),
                     data.get("list", False), data.get("multiSegment", False))


@cache
def load_spec(path: Path) -> Spec:
    data = json.loads(path.read_text())
    operations = tuple(
        Operation(o["id"], o["method"], o["path"], {n: _parameter(n, p) for n, p in o["parameters"].items()},
                  o.get("request"), o.get("response"), o.get("contentType") or "application/json",
                  o.get("format", "json"))
        for o in data["operations"])
    service_path = data["servicePath"].strip("/")
    return Spec(data["name"], data["version"], "/" + service_path if service_path else "",
                "/" + data["batchPath"].strip("/") if data.get("batchPath") else None, operations,
                {n: _parameter(n, p) for n, p in data["parameters"].items()}, data["schemas"])
