"""The resource model a trimmed description implies, as data: which paths are collections and
items (`/customers`, `/customers/{customer}`, nested `/issues/{key}/comments`), what each
operation does to them (list, create, read, update, delete; anything else is unmodeled), how
lists page (Stripe's `starting_after`, `startAt` offsets, `after` cursors, `page` with a Link
header), which query parameters filter on stored fields, how ids look (`cus_` prefixes, numbers,
uuids, `PROJ-12` keys: from the vendor's example objects, else the id's format), and the
vendor's error body laid out from its error schema."""

from __future__ import annotations

import json
import re
from typing import Any

PREFIX_WORDS = re.compile(r"^(v\d+(\.\d+)?|api|rest|\d+(\.\d+)?|\d{4}-\d{2}-\d{2}|latest)$")
SUFFIX = re.compile(r"\.(json|xml)$")
PAGING = {  # a list operation's parameters -> its style
    "starting_after": "starting_after", "startAt": "offset", "offset": "offset", "after": "after",
    "cursor": "cursor", "start_cursor": "cursor", "page_token": "cursor", "pageToken": "cursor",
    "PageToken": "cursor", "page": "page", "Page": "page"}
PAGE_WORDS = {"limit", "starting_after", "ending_before", "startAt", "maxResults", "offset", "after", "before",
              "cursor", "start_cursor", "page_size", "page_token", "pageToken", "page", "per_page", "PageSize",
              "Page", "PageToken", "expand", "fields", "properties", "sort", "order", "sort_by", "sort_order"}
SCALARS = {"string", "integer", "number", "boolean"}
# Where list answers keep their items (another array property is a field of one object).
LIST_FIELDS = ("data", "values", "results", "items", "issues", "records", "entries", "users", "tickets",
               "messages", "calls", "comments", "contacts", "companies", "deals", "elements")
ACTION_WORDS = {"search", "bulk", "batch", "count"}  # verbs, not collections: unmodeled unless a pack overrides


def _ref_name(node: Any) -> str | None:
    if isinstance(node, dict) and isinstance(node.get("$ref"), str):
        return node["$ref"].rsplit("/", 1)[-1]
    return None


def _schema(document: dict, node: Any) -> dict:
    """A schema, its reference followed, its `allOf` parts' properties merged (PagerDuty's)."""
    found, seen = node or {}, 0
    while _ref_name(found) and seen < 20:  # a reference to a reference (Asana's UserBase)
        found, seen = document["components"]["schemas"].get(_ref_name(found), {}), seen + 1
    if not isinstance(found, dict) or "allOf" not in found:
        return found
    merged: dict = {"type": "object", **{k: v for k, v in found.items() if k != "allOf"}}
    for part in (_schema(document, p) for p in found["allOf"]):
        merged["properties"] = {**merged.get("properties", {}), **part.get("properties", {})}
    return merged


def _success(operation: dict) -> tuple[str | None, dict]:
    """The first 2xx answer's JSON schema."""
    for status in sorted(operation["responses"]):
        if status.startswith("2"):
            content = operation["responses"][status].get("content", {})
            media = next((m for m in content if "json" in m), None)
            return status, content[media]["schema"] if media else {}
    return None, {}


def _list_field(document: dict, node: dict, named: str = "") -> tuple[str | None, dict | None]:
    """Where a list answer keeps its items: "" for a bare array, else the array property's name
    (one of LIST_FIELDS, or the collection's own name: Twilio's `accounts`)."""
    resolved = _schema(document, node)
    if resolved.get("type") == "array" or "array" in (resolved.get("type") or ()):  # 3.1's ["array", "null"]
        return "", resolved.get("items")
    arrays = [(n, p) for n, p in resolved.get("properties", {}).items() if _schema(document, p).get("type") == "array"]
    found = [a for a in arrays if a[0] in LIST_FIELDS or a[0] == named or snake(a[0]) == named][:1]  # People's contactGroups
    found = found or (arrays if named and len(arrays) == 1 else [])  # the answer's one list (Chat's members: memberships)
    return (found[0][0], _schema(document, found[0][1]).get("items")) if found else (None, None)


def _segments(path: str) -> list[str]:
    """A path's segments without a format suffix (Twilio's `Messages.json`, `{Sid}.json`)."""
    return [SUFFIX.sub("", s) for s in path.strip("/").split("/") if s]


def _shape(path: str) -> list[str]:
    """Segments with every placeholder alike: `/Accounts/{Sid}` is `/Accounts/{AccountSid}`'s item."""
    return ["{}" if _is_placeholder(s) else s for s in _segments(path)]


def snake(name: str) -> str:
    """`MessagingServiceSid` -> `messaging_service_sid` (Twilio's parameters name its fields so)."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _is_placeholder(segment: str) -> bool:
    return segment.startswith("{") and segment.endswith("}")


def id_style(example_id: Any, id_schema: dict) -> dict:
    """How the vendor's ids look, from one example id, else from the id's declared type and format."""
    if isinstance(example_id, int) or (isinstance(example_id, str) and example_id.isdigit()):
        return {"kind": "numeric", "digits": max(len(str(example_id)), 5), "as": "integer"
                if isinstance(example_id, int) or id_schema.get("type") == "integer" else "string"}
    if isinstance(example_id, str):
        if re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", example_id, re.I):
            return {"kind": "uuid"}
        if re.fullmatch(r"[A-Z][A-Z0-9]+-\d+", example_id):
            return {"kind": "key"}
        twilio = re.fullmatch(r"([A-Z]{2})([0-9a-f]{32})", example_id)
        if twilio:
            return {"kind": "prefix", "prefix": twilio.group(1), "length": 32, "alphabet": "hex"}
        prefixed = re.fullmatch(r"([A-Za-z]+_)([A-Za-z0-9]+)", example_id)
        if prefixed:
            return {"kind": "prefix", "prefix": prefixed.group(1), "length": len(prefixed.group(2))}
    if id_schema.get("type") == "integer":
        return {"kind": "numeric", "digits": 5, "as": "integer"}
    if id_schema.get("format") == "uuid":
        return {"kind": "uuid"}
    return {"kind": "prefix", "prefix": "", "length": 24}


def _examples(found: Any, into: dict[str, Any]) -> None:
    """Vendor example objects (Stripe's fixtures: `{"resources": {"customer": {...}}}`, or any
    JSON): an object with an `id` and an `object` type names that type's example id."""
    if isinstance(found, dict):
        if "id" in found and isinstance(found.get("object"), str):
            into.setdefault(found["object"], found["id"])
        for value in found.values():
            _examples(value, into)
    elif isinstance(found, list):
        for value in found:
            _examples(value, into)


def response_examples(document: dict) -> dict[str, Any]:
    """Example ids the description itself gives: a 2xx answer's example (or an item of a listed
    example) whose schema is a named one, by that schema's name (Jira's `"id": "10000"`)."""
    found: dict[str, Any] = {}
    for operations in document.get("paths", {}).values():
        for operation in (o for m, o in operations.items() if isinstance(o, dict) and m in ("get", "post", "put")):
            for status, answer in operation.get("responses", {}).items():
                for media in (answer.get("content") or {}).values() if str(status).startswith("2") else ():
                    example, schema = media.get("example"), media.get("schema", {})
                    if example is None and isinstance(media.get("examples"), dict) and media["examples"]:
                        example = next(iter(media["examples"].values()), {}).get("value")  # Twilio's named ones
                    if isinstance(example, str) and example.startswith(("{", "[")):  # Jira's: JSON as text
                        try:
                            example = json.loads(example)
                        except ValueError:
                            continue
                    if isinstance(example, list) and example and schema.get("type") == "array":
                        example, schema = example[0], schema.get("items", {})
                    name = _ref_name(schema)
                    key = "id" if isinstance(example, dict) and "id" in example else "sid"
                    if name and isinstance(example, dict) and key in example:
                        found.setdefault(name, example[key])
    return found


def _success_media(operation: dict) -> dict | None:
    """The first 2xx answer's JSON content (where its schema sits)."""
    for status in sorted(operation["responses"]):
        content = operation["responses"][status].get("content", {}) if status.startswith("2") else {}
        media = next((m for m in content if "json" in m), None)
        if media:
            return content[media]
    return None


def _named(document: dict, holder: dict | None, key: str, name: str) -> str | None:
    """The name of the schema at `holder[key]`: its reference, or, for an object written inline
    (Jira Software's boards, its sprints' empty schema), a component of the resource's name that
    the trimmed description then refers to (so rows, answers and checks read one schema)."""
    node = (holder or {}).get(key)
    if _ref_name(node):
        return _ref_name(node)
    if not isinstance(node, dict) or node.get("type", "object") != "object" or \
            any(k in node for k in ("anyOf", "oneOf", "allOf")):
        return None
    document["components"].setdefault("schemas", {}).setdefault(name, node)
    holder[key] = {"$ref": f"#/components/schemas/{name}"}
    return name


def _unwrapped(document: dict, name: str) -> tuple[str | None, str]:
    """(envelope, row schema): an answer that is one property holding a named object schema
    wraps the resource (Zendesk's `{"ticket": {...}}`), and the row is what it holds."""
    props = document["components"]["schemas"].get(name, {}).get("properties", {})
    if len(props) == 1:
        (key, inner), = props.items()
        held = _ref_name(inner)
        if held and any(k in _schema(document, inner) for k in ("properties", "anyOf", "oneOf", "allOf")):
            return key, held
    return None, name


def _object_type(schema: dict) -> str | None:
    enum = schema.get("properties", {}).get("object", {}).get("enum")
    return enum[0] if enum and len(enum) == 1 else None


def _table_name(pack: str, segments: list[str]) -> str:
    words = [s for s in segments if not _is_placeholder(s) and not PREFIX_WORDS.match(s) and s not in pack.split("_")]
    return re.sub(r"[^a-z0-9_]", "_", f"{pack}_" + "_".join(words).lower())


def infer(pack: str, document: dict, examples: Any = None, described: dict | None = None) -> dict:
    """The model: resources (collections and their items) and each operation's action; ids from
    the vendor's `examples` (objects) and the examples of the untrimmed description `described`."""
    example_ids: dict[str, Any] = {}
    _examples(examples, example_ids)
    for name, value in response_examples(described or {}).items():
        example_ids.setdefault(name, value)
    paths = document["paths"]
    resources: dict[str, dict] = {}
    for path, operations in paths.items():  # collections: a literal last segment with a list or a create
        segments = _segments(path)
        if not segments or _is_placeholder(segments[-1]) or segments[-1] in ACTION_WORDS:
            continue
        item_path = next((p for p in paths if _shape(p)[:-1] == _shape(path) and _is_placeholder(_segments(p)[-1])),
                         None)
        # a list named for itself has items to read (where items can be read or made: PagerDuty's notes)
        named = snake(segments[-1]) if item_path or "post" in operations else ""
        listed = "get" in operations and _list_field(document, _success(operations["get"])[1], named)[0] is not None
        if not (listed or (item_path and "post" in operations)):
            continue
        table = _table_name(pack, segments)
        schema = None
        if item_path and "get" in paths[item_path]:
            schema = _named(document, _success_media(paths[item_path]["get"]), "schema", table)
        if schema is None and "post" in operations:
            schema = _named(document, _success_media(operations["post"]), "schema", table)
        if schema is None and listed:
            answer = _schema(document, _success(operations["get"])[1])
            field = _list_field(document, answer, named)[0]
            schema = _named(document, answer if field == "" else answer["properties"][field], "items", table)
        if schema is None:
            continue
        envelope, schema = _unwrapped(document, schema)
        shape = _schema(document, {"$ref": f"#/components/schemas/{schema}"})
        parent = next((r for r in resources.values() if r["item"] and _shape(r["item"]) == _shape(path)[:-1]), None)
        placeholders = [s[1:-1] for s in segments if _is_placeholder(s)]
        object_type = _object_type(shape)
        props = shape.get("properties", {})
        key = _segments(item_path)[-1][1:-1] if item_path else None
        # Where the schema has no `id`: Twilio's `sid`, Asana's `gid`, or the field the item path names (Docs' `documentId`)
        id_field = next((f for f in ("sid", "gid", key) if f and f in props and "id" not in props), "id")
        resources[table] = {
            "table": table, "collection": path, "item": item_path, "schema": schema,
            "key": key,
            "parent_key": placeholders[-1] if placeholders else None,
            "parent": parent["table"] if parent else None, "object": object_type,
            # a parent placeholder named `id` (PagerDuty's `/incidents/{id}/notes`) is not the row's own id
            **({"parent_field": f"{segments[-3]}_id"} if placeholders and placeholders[-1] == id_field else {}),
            "id_field": id_field, "id": id_style(example_ids.get(object_type or schema), props.get(id_field, {})),
            **({"envelope": envelope} if envelope else {})}
    for table, resource in list(resources.items()):  # a parent may come after its child in path order
        if resource["parent_key"] and resource["parent"] is None:
            resource["parent"] = next((r["table"] for r in resources.values() if r["item"] and _shape(r["item"])
                                       == _shape(resource["collection"])[:-1]), None)
    return {"pack": pack, "resources": resources, "operations": _operations(document, resources),
            "error": error_template(document)}


def _operations(document: dict, resources: dict) -> dict[str, dict]:
    by_path = {}
    for resource in resources.values():
        by_path[resource["collection"]] = (resource["table"], "collection")
        if resource["item"]:
            by_path[resource["item"]] = (resource["table"], "item")
    actions = {("collection", "get"): "list", ("collection", "post"): "create", ("item", "get"): "read",
               ("item", "put"): "update", ("item", "patch"): "update", ("item", "delete"): "delete",
               ("item", "post"): "update"}
    found = {}
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            table, place = by_path.get(path, (None, None))
            action = actions.get((place, method)) if table else None
            if action == "update" and method == "post" and ("put" in operations or "patch" in operations):
                action = None  # a POST beside a PUT/PATCH is some other verb
            if action == "create" and _success(operation)[0] == "204":
                action = None  # a POST that answers nothing made nothing to read back: a verb
            entry: dict[str, Any] = {"action": action, "resource": table if action else None}
            if action == "list":
                entry.update(_list_details(document, operation, resources[table]))
            found[operation["operationId"]] = entry
    return dict(sorted(found.items()))


def _list_details(document: dict, operation: dict, resource: dict) -> dict:
    names = {p["name"]: p for p in operation["parameters"] if p["in"] == "query"}
    style = next((PAGING[n] for n in PAGING if n in names), "none")
    size = next((n for n in ("limit", "maxResults", "page_size", "per_page", "PageSize", "pageSize") if n in names),
                None)
    fields = _schema(document, {"$ref": f"#/components/schemas/{resource['schema']}"}).get("properties", {})
    filters = {n: n if n in fields else snake(n) for n, p in sorted(names.items()) if n not in PAGE_WORDS
               and (n in fields or snake(n) in fields) and _schema(document, p["schema"]).get("type") in SCALARS}
    named = snake(_segments(resource["collection"])[-1])
    return {"paging": style, "page_size": size, "items": _list_field(document, _success(operation)[1], named)[0],
            "filters": filters}


def error_template(document: dict) -> Any:
    """The vendor's error body with `{message}`, `{code}`, `{status}`, `{type}`, `{param}` where
    its error schema has such fields (the first 4xx or default answer that has a schema)."""
    for operation in (o for ops in document["paths"].values() for o in ops.values()):
        for status, response in sorted(operation["responses"].items()):
            if status.startswith("4") or status == "default":
                content = response.get("content", {})
                media = next((m for m in content if "json" in m), None) or next((m for m in content if m == "*/*"),
                                                                                 None)
                if media and content[media].get("schema"):
                    return _lay_out(document, content[media]["schema"], 0)
    return {"message": "{message}", "code": "{code}"}


def _lay_out(document: dict, node: Any, depth: int) -> Any:
    schema = _schema(document, node)
    for key in ("anyOf", "oneOf", "allOf"):
        if schema.get(key) and "properties" not in schema:
            return _lay_out(document, schema[key][0], depth)
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if kind == "array":
        inner = _schema(document, schema.get("items", {}))
        return ["{message}"] if inner.get("type", "string") == "string" else []
    if kind != "object" or depth > 3:
        return None
    body = {}
    for name, prop in schema.get("properties", {}).items():
        lower = name.lower()
        if lower in ("message", "detail", "title", "error_description", "errormessage"):
            body[name] = "{message}"
        elif lower in ("code", "errorcode", "error_code", "reason", "category"):
            body[name] = "{code}"
        elif lower in ("status", "statuscode", "status_code"):
            body[name] = "{status}"
        elif lower == "type":
            body[name] = "{type}"
        elif lower == "param":
            body[name] = "{param}"
        elif lower == "errormessages":
            body[name] = ["{message}"]
        elif lower in ("error", "errors") and _schema(document, prop).get("type", "object") in ("object", "array"):
            laid = _lay_out(document, prop, depth + 1)
            if laid is not None:
                body[name] = laid
        elif name in schema.get("required", []) and _schema(document, prop).get("type") == "string":
            body[name] = "{request_id}" if lower.endswith("id") else ""  # HubSpot's correlationId
    return body or ({} if depth else {"message": "{message}"})
