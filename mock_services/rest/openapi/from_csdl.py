"""Microsoft Graph's published metadata (CSDL: msgraph-metadata's schemas/v1.0-Prod.csdl) ->
the OpenAPI description of the paths a pack serves, laid out as Microsoft's own OpenAPI
descriptions lay them out (OpenAPI.NET.OData: `user_ListMessage`, `user.message_reply`,
`{"value": [...], "@odata.nextLink"}` lists, the `{"error": {"code", "message"}}` error).
Microsoft's OpenAPI files are generated from this CSDL and are tens of megabytes; a pack needs a
few paths of them, so it names them (one line each: `get,post /users/{user-id}/messages`) and
this converter writes only those, with every type they reach.

    python -m mock_services.rest.openapi.from_csdl CSDL PATHS OUT [--title TITLE]

Paths come out below `/v1.0` (the version is the path's, as every pack's description has it),
placeholders as `{user_id}` (the engine reads them as Python names).
"""

from __future__ import annotations

import argparse
import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

EDM = "{http://docs.oasis-open.org/odata/ns/edm}"
PRIMITIVE = {"Edm.String": {"type": "string"}, "Edm.Boolean": {"type": "boolean"},
             "Edm.Int32": {"type": "integer", "format": "int32"}, "Edm.Int64": {"type": "integer", "format": "int64"},
             "Edm.Int16": {"type": "integer"}, "Edm.Byte": {"type": "integer"}, "Edm.Double": {"type": "number"},
             "Edm.Single": {"type": "number"}, "Edm.Decimal": {"type": "number"},
             "Edm.DateTimeOffset": {"type": "string", "format": "date-time"},
             "Edm.Date": {"type": "string", "format": "date"}, "Edm.TimeOfDay": {"type": "string", "format": "time"},
             "Edm.Duration": {"type": "string", "format": "duration"}, "Edm.Guid": {"type": "string", "format": "uuid"},
             "Edm.Binary": {"type": "string", "format": "base64url"}, "Edm.Stream": {"type": "string", "format": "binary"}}
QUERY = {"list": ["$top", "$skip", "$filter", "$orderby", "$select", "$expand", "$count", "$search"],
         "get": ["$select", "$expand"]}
VERBS = {"get": "Get", "patch": "Update", "delete": "Delete", "put": "Set"}


class Csdl:
    """The metadata's types, by their short name (`message`), and its bound operations."""

    def __init__(self, path: Path) -> None:
        schema = next(ET.parse(path).getroot().iter(f"{EDM}Schema"), None)
        if schema is None:
            raise ValueError(f"{path} is not CSDL (no Schema)")
        self.types = {e.get("Name"): e for e in schema if e.tag in (f"{EDM}EntityType", f"{EDM}ComplexType",
                                                                     f"{EDM}EnumType")}
        self.bound = [e for e in schema if e.tag in (f"{EDM}Action", f"{EDM}Function") and e.get("IsBound") == "true"]
        container = schema.find(f"{EDM}EntityContainer")
        self.roots = {e.get("Name"): (e.get("EntityType") or e.get("Type"), e.tag == f"{EDM}EntitySet")
                      for e in container if e.tag in (f"{EDM}EntitySet", f"{EDM}Singleton")}

    def chain(self, name: str) -> list[ET.Element]:
        """A type and its base types, base first."""
        found = []
        while name:
            element = self.types[name]
            found.insert(0, element)
            name = short(element.get("BaseType") or "")
        return found

    def member(self, type_name: str, name: str) -> ET.Element | None:
        for element in self.chain(type_name):
            for child in element:
                if child.get("Name") == name and child.tag in (f"{EDM}Property", f"{EDM}NavigationProperty"):
                    return child
        return None

    def operation(self, name: str, binding: str, collection: bool) -> ET.Element | None:
        """The bound action or function `name` on the type (or a base of it)."""
        bases = {f"graph.{e.get('Name')}" for e in self.chain(binding)}
        for element in self.bound:
            bound_to = element.find(f"{EDM}Parameter").get("Type")
            if element.get("Name") == name and (bound_to.startswith("Collection(") == collection) and \
                    bound_to.removeprefix("Collection(").removesuffix(")") in bases:
                return element
        return None


def short(qualified: str) -> str:
    return qualified.rsplit(".", 1)[-1] if qualified else ""


def unwrap(type_ref: str) -> tuple[str, bool]:
    """`Collection(graph.recipient)` -> ("graph.recipient", True)."""
    return (type_ref[11:-1], True) if type_ref.startswith("Collection(") else (type_ref, False)


class Writer:
    """The OpenAPI document, its component schemas gathered as the paths reach them."""

    def __init__(self, csdl: Csdl) -> None:
        self.csdl = csdl
        self.schemas: dict[str, dict] = {}

    def ref(self, type_ref: str) -> dict:
        inner, many = unwrap(type_ref)
        node = dict(PRIMITIVE[inner]) if inner in PRIMITIVE else self.named(short(inner))
        return {"type": "array", "items": node} if many else node

    def named(self, name: str) -> dict:
        key = f"microsoft.graph.{name}"
        if key not in self.schemas:
            self.schemas[key] = {}  # taken before its fields, which may reach it again
            self.schemas[key] = self.laid_out(name)
        return {"$ref": f"#/components/schemas/{key}"}

    def laid_out(self, name: str) -> dict:
        element = self.csdl.types[name]
        if element.tag == f"{EDM}EnumType":
            return {"title": name, "type": "string", "enum": [m.get("Name") for m in element]}
        props: dict[str, dict] = {}
        for part in self.csdl.chain(name):
            for child in part:
                if child.tag == f"{EDM}Property":
                    node = self.ref(child.get("Type"))
                    if child.get("Nullable") != "false" and "$ref" not in node:
                        node["nullable"] = True
                    props[child.get("Name")] = node
        props["@odata.type"] = {"type": "string"}
        return {"title": name, "type": "object", "properties": props, "additionalProperties": False}


def _placeholders(path: str) -> str:
    """`{user-id}` -> `{user_id}` (the engine reads placeholders as Python names)."""
    return path.replace("-id}", "_id}")


def _parameters(path: str, listing: bool, method: str, required: str) -> list[dict]:
    """The path's placeholders, OData's query options, and the line's required query."""
    found = [{"name": p[1:-1], "in": "path", "required": True, "schema": {"type": "string"}}
             for p in _placeholders(path).split("/") if p.startswith("{")]
    names = QUERY["list"] if listing else QUERY["get"] if method == "get" else []
    return found + [{"name": n, "in": "query", "required": True, "schema": {"type": "string"}}
                    for n in required.split(",") if n] + \
        [{"name": n, "in": "query", "schema": {"type": "integer" if n in ("$top", "$skip") else
                                                  "boolean" if n == "$count" else "string"}} for n in names]


def _json(schema: dict) -> dict:
    return {"content": {"application/json": {"schema": schema}}}


ERROR = {"default": {"description": "error", **_json({"$ref": "#/components/schemas/microsoft.graph.ODataErrors"
                                                               ".ODataError"})}}


def convert(csdl: Csdl, lines: list[str], title: str) -> dict:
    """The OpenAPI description of the `lines` (`methods path`), and the types they reach."""
    writer, paths, taken = Writer(csdl), {}, set()
    for line in (entry.strip() for entry in lines):
        if not line or line.startswith("#"):
            continue
        methods, _, path = line.partition(" ")
        path, _, query = path.partition("?")
        item = _path_item(csdl, writer, path, methods.split(","), query)
        for operation in item.values():  # `/calendar/events` and `/calendars/{id}/events`: `calendars_`
            while operation["operationId"] in taken:
                operation["operationId"] = operation["operationId"].replace("_", "s_", 1)
            taken.add(operation["operationId"])
        paths["/v1.0" + _placeholders(path)] = item
    writer.schemas["microsoft.graph.ODataErrors.ODataError"] = {
        "type": "object", "required": ["error"], "properties": {"error": {
            "type": "object", "required": ["code", "message"],
            "properties": {"code": {"type": "string"}, "message": {"type": "string"},
                           "target": {"type": "string", "nullable": True}}}}}
    return {"openapi": "3.0.1", "info": {"title": title, "version": "v1.0"},
            "servers": [{"url": "https://graph.microsoft.com"}], "paths": paths,
            "components": {"schemas": dict(sorted(writer.schemas.items()))}}


def _path_item(csdl: Csdl, writer: Writer, path: str, methods: list[str], query: str) -> dict:
    """What a path addresses (a collection, an entity, a stream, a bound action or function),
    walked segment by segment from the entity set or singleton it starts at."""
    segments = path.strip("/").split("/")
    type_name, many = csdl.roots[segments[0]]
    type_name, words = short(type_name), []
    kind, operation = ("collection" if many else "entity"), None
    for segment in segments[1:]:
        if segment.startswith("{"):
            kind = "entity"
            continue
        member = csdl.member(type_name, segment)
        if member is not None and member.get("Type") == "Edm.Stream":
            kind = "stream"
            continue
        if member is not None:
            inner, many = unwrap(member.get("Type"))
            type_name, kind = short(inner), "collection" if many else "entity"
            words.append(segment)
            continue
        operation = csdl.operation(segment, type_name, kind == "collection")
        if operation is None:
            raise ValueError(f"{path}: {type_name} has no {segment}")
        kind = "action" if operation.tag == f"{EDM}Action" else "function"
    prefix = ".".join([_singular(segments[0])] + [_singular(w) for w in words[:-1]])
    last = (words or [segments[0]])[-1]
    item: dict[str, dict] = {}
    for method in methods:
        if kind == "collection" and method == "get":
            answer = {"type": "object", "properties": {"value": {"type": "array", "items": writer.named(type_name)},
                                                       "@odata.nextLink": {"type": "string", "nullable": True}}}
            item[method] = {"operationId": f"{prefix}_List{_title(last)}", "responses": {"200": _json(answer)}}
        elif kind == "collection" and method == "post":
            item[method] = {"operationId": f"{prefix}_Create{_title(last)}",
                            "requestBody": {"required": True, **_json(writer.named(type_name))},
                            "responses": {"201": _json(writer.named(type_name))}}
        elif kind == "entity":
            verb = VERBS[method]
            body = {"requestBody": {"required": True, **_json(writer.named(type_name))}} if method == "patch" else {}
            item[method] = {"operationId": f"{prefix}_{verb}{_title(last)}", **body, "responses": (
                {"204": {"description": "Success"}} if method == "delete" else {"200": _json(writer.named(type_name))})}
        elif kind == "stream":
            ok = {"200": {"description": "Retrieved media content", "content": {
                "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}}} if method == "get" \
                else {"200": _json(writer.named(type_name))}
            body = {"requestBody": {"required": True, "content": {"application/octet-stream": {
                "schema": {"type": "string", "format": "binary"}}}}} if method == "put" else {}
            item[method] = {"operationId": f"{prefix}.{_singular(last)}_{VERBS[method]}Content", **body, "responses": ok}
        else:
            item[method] = _bound(writer, operation, f"{prefix}.{_singular(last)}" if words else prefix, method)
        item[method]["parameters"] = _parameters(path, kind == "collection" and method == "get", method, query)
        item[method]["responses"].update(ERROR)
    return item


def _bound(writer: Writer, operation: ET.Element, prefix: str, method: str) -> dict:
    """A bound action (POST, its parameters as the body) or function (GET)."""
    params = operation.findall(f"{EDM}Parameter")[1:]
    returns = operation.find(f"{EDM}ReturnType")
    many = returns is not None and unwrap(returns.get("Type"))[1]  # a collection comes as OData's `value`
    answer = {"204": {"description": "Success"}} if returns is None else {"200": _json(
        {"type": "object", "properties": {"value": writer.ref(returns.get("Type"))}} if many else
        writer.ref(returns.get("Type")))}
    found = {"operationId": f"{prefix}_{operation.get('Name')}", "responses": answer}
    if method == "post":
        body = {"type": "object", "properties": {p.get("Name"): writer.ref(p.get("Type")) for p in params},
                "required": [p.get("Name") for p in params if p.get("Nullable") == "false"]}
        found["requestBody"] = {"required": True, **_json(body)}
        if not body["required"]:
            del body["required"]
    return found


def _singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def _title(word: str) -> str:
    return _singular(word[:1].upper() + word[1:])


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m mock_services.rest.openapi.from_csdl",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("csdl", type=Path, help="Microsoft Graph's CSDL (msgraph-metadata schemas/v1.0-Prod.csdl)")
    parser.add_argument("paths", type=Path, help="the pack's paths, a line each: `get,post /users/{user-id}/messages`, "
                                                 "`get /users/{user-id}/calendarView?startDateTime,endDateTime` "
                                                 "(required query)")
    parser.add_argument("out", type=Path, help="where the OpenAPI description goes (JSON)")
    parser.add_argument("--title", default="Microsoft Graph v1.0")
    args = parser.parse_args(argv)
    try:
        document = convert(Csdl(args.csdl), args.paths.read_text().splitlines(), args.title)
    except (OSError, ValueError, KeyError, ET.ParseError) as e:
        raise SystemExit(f"cannot convert {args.csdl}: {e}") from None
    args.out.write_text(json.dumps(document, indent=1) + "\n")
    print(f"{args.out}: {sum(len(v) for v in document['paths'].values())} operations, "
          f"{len(document['components']['schemas'])} schemas")


if __name__ == "__main__":
    main(sys.argv[1:])
