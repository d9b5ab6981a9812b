"""The committed generator: Box's official Python SDK (PyPI `boxsdk`, package `box_sdk_gen`,
which the project installs) -> the spec file the Box pack routes from.

Box generates that SDK from its OpenAPI description, one manager method per endpoint, so its
source is a faithful, installable copy of the surface. This reads the source with `ast` (no
import, no network) and keeps, per endpoint: the HTTP method, the host (api or upload), the
path with its placeholders, the query and header parameters with their types and enums, the
body's content type and fields, the answer's format and model; and, per model, its JSON field
names and types. It keeps no prose.

    python -m mock_services.box.generate_spec mock_services/box/spec/box_sdk.json
"""

from __future__ import annotations

import ast
import json
import re
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

HOSTS = {"base_url": "api", "upload_url": "upload", "oauth_2_url": "account"}
PREFIXES = {"api": "", "upload": "api/", "account": "oauth2/"}  # how the host's base URL ends (api.box.com/api)


def package_root() -> Path:
    try:
        import box_sdk_gen
    except ImportError:
        raise SystemExit("box_sdk_gen is not installed: pip install boxsdk") from None
    return Path(box_sdk_gen.__file__).parent


def _annotation(node: ast.expr | None) -> str:
    return ast.unparse(node) if node is not None else "Any"


def _scalar(annotation: str) -> tuple[str, bool]:
    """`Optional[List[int]]` -> ("int", repeated=True)."""
    inner = re.sub(r"^Optional\[(.*)\]$", r"\1", annotation)
    repeated = inner.startswith("List[")
    inner = re.sub(r"^List\[(.*)\]$", r"\1", inner)
    return inner, repeated


def _enums(tree: ast.Module) -> dict[str, list[str]]:
    """Module-level `class X(str, Enum)` -> its values."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and any(ast.unparse(b) == "Enum" for b in node.bases):
            found[node.name] = [ast.literal_eval(s.value) for s in node.body
                                if isinstance(s, ast.Assign) and isinstance(s.value, ast.Constant)]
    return found


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _dict_keys(node: ast.expr | None) -> list[str]:
    """The literal keys of `{...}` or `prepare_params({...})`."""
    if isinstance(node, ast.Call) and node.args:
        node = node.args[0]
    if not isinstance(node, ast.Dict):
        return []
    return [k.value for k in node.keys if isinstance(k, ast.Constant)]


def _url(node: ast.expr) -> tuple[str, str]:
    """`''.join([base_urls.base_url, '/2.0/files/', to_string(file_id)])` -> (host, path)."""
    parts = node.args[0].elts  # type: ignore[attr-defined]
    host = HOSTS[parts[0].attr]
    path = ""
    for part in parts[1:]:
        if isinstance(part, ast.Constant):
            path += part.value
        else:
            path += "{" + ast.unparse(part.args[0] if isinstance(part, ast.Call) else part) + "}"
    path = path.split("#", 1)[0]  # Box's description tells variants of one route apart by a fragment
    return host, PREFIXES[host] + path.lstrip("/")


def _local_dicts(function: ast.FunctionDef) -> dict[str, ast.expr]:
    """Assignments such as `query_params_map = prepare_params({...})` in the method's body."""
    found = {}
    for node in ast.walk(function):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if isinstance(target, ast.Name) and node.value is not None:
                found[target.id] = node.value
    return found


def _parameters(function: ast.FunctionDef, path: str, query: list[str], headers: list[str],
                enums: dict[str, list[str]]) -> dict[str, dict]:
    args = {a.arg: a for a in function.args.args + function.args.kwonlyargs}
    required = {a.arg for a in function.args.args[1:]}
    parameters: dict[str, dict] = {}
    for name in re.findall(r"\{([^}]+)\}", path):
        parameters[name] = {"location": "path", "type": "string", "required": True}
    for location, names in (("query", query), ("header", headers)):
        for name in names:
            arg = args.get(name.replace("-", "_")) or args.get(name)
            kind, repeated = _scalar(_annotation(arg.annotation if arg else None))
            entry: dict[str, Any] = {"location": location, "type": {"int": "integer", "bool": "boolean"}.get(kind, "string")}
            if arg is not None and arg.arg in required:
                entry["required"] = True
            if repeated:
                entry["list"] = True  # the SDK joins a list's values with commas
            if kind in enums:
                entry["enum"] = enums[kind]
            parameters[name] = entry
    return parameters


def _operation(manager: str, function: ast.FunctionDef, fetch: ast.Call, enums: dict[str, list[str]]) -> dict:
    local = _local_dicts(function)
    host, path = _url(_keyword(fetch, "url"))
    body = _keyword(fetch, "data")
    body_fields = _dict_keys(local.get(ast.unparse(body.args[0]) if isinstance(body, ast.Call) and body.args else ""))
    multipart = _keyword(fetch, "multipart_data")
    if multipart is not None:
        body_fields = [ast.literal_eval(_keyword(item, "part_name")) for item in multipart.elts]
    headers = [h for h in _dict_keys(local.get("headers_map")) if h]
    query = _dict_keys(local.get("query_params_map"))
    content_type = _keyword(fetch, "content_type")
    returned = next((n.value for n in ast.walk(function) if isinstance(n, ast.Return)), None)
    response = (ast.unparse(returned.args[1]) if isinstance(returned, ast.Call) and len(returned.args) > 1
                and ast.unparse(returned.func) == "deserialize" else None)
    operation = {"id": f"box.{manager}.{function.name}", "method": ast.literal_eval(_keyword(fetch, "method")),
                 "host": host, "path": path,
                 "parameters": _parameters(function, path, query, headers, enums),
                 "contentType": (ast.literal_eval(content_type) if isinstance(content_type, ast.Constant)
                                 else "application/octet-stream" if content_type is not None else None),
                 "body": body_fields,
                 "format": ast.unparse(_keyword(fetch, "response_format")).rsplit(".", 1)[-1].lower(),
                 "response": response}
    return {k: v for k, v in operation.items() if v not in (None, [])}


def _manager_operations(path: Path) -> list[dict]:
    tree = ast.parse(path.read_text())
    enums = _enums(tree)
    found = []
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name.endswith("Manager")):
        for function in (n for n in cls.body if isinstance(n, ast.FunctionDef)):
            fetch = next((n for n in ast.walk(function) if isinstance(n, ast.Call)
                          and ast.unparse(n.func) == "FetchOptions"), None)
            if fetch is not None and isinstance(_keyword(fetch, "url"), ast.Call):  # not the `..._by_url` twins
                found.append(_operation(path.stem, function, fetch, enums))
    return found


def _schema_fields(tree: ast.Module) -> dict[str, dict]:
    """`class File(FileMini)` -> its bases, its own JSON renames and its arguments' types."""
    found = {}
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and "Enum" not in map(ast.unparse, n.bases)):
        init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
        renames = {}
        for node in cls.body:
            if isinstance(node, ast.AnnAssign) and ast.unparse(node.target) == "_fields_to_json_mapping":
                renames = {k.value: v.value for k, v in zip(node.value.keys, node.value.values)
                           if isinstance(k, ast.Constant)}
        args = (init.args.args[1:] + init.args.kwonlyargs) if init else []
        found[cls.name] = {"bases": [ast.unparse(b) for b in cls.bases], "renames": renames,
                           "args": {a.arg: _annotation(a.annotation) for a in args}}
    return found


def _unions(tree: ast.Module) -> dict[str, list[str]]:
    """`Item = Union[FileFull, FolderMini, WebLink]`: a name that stands for one of several models."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript) \
                and ast.unparse(node.value.value) == "Union" and isinstance(node.targets[0], ast.Name):
            members = node.value.slice.elts if isinstance(node.value.slice, ast.Tuple) else [node.value.slice]
            found[node.targets[0].id] = [ast.unparse(m) for m in members]
    return found


def _json_fields(name: str, parsed: dict[str, dict]) -> dict[str, str]:
    """A model's fields by their JSON names (renames are inherited, as the SDK merges them)."""
    renames: dict[str, str] = {}
    pending = [name]
    while pending:
        current = parsed.get(pending.pop())
        if current:
            renames = {**current["renames"], **renames}
            pending += current["bases"]
    return {renames.get(arg, arg): kind for arg, kind in parsed[name]["args"].items()}


def generate(root: Path) -> str:
    operations = [op for path in sorted((root / "managers").glob("*.py")) for op in _manager_operations(path)]
    parsed: dict[str, dict] = {}
    unions: dict[str, list[str]] = {}
    for path in sorted((root / "schemas").rglob("*.py")):
        tree = ast.parse(path.read_text())
        parsed.update(_schema_fields(tree))
        unions.update(_unions(tree))
    schemas = {name: {"bases": data["bases"], "fields": _json_fields(name, parsed)} for name, data in parsed.items()}
    schemas.update({name: {"union": members} for name, members in unions.items()})
    spec = {"generated_from": f"box_sdk_gen {metadata.version('boxsdk')} (PyPI boxsdk), managers and schemas",
            "name": "box", "version": "2.0", "servicePath": "", "batchPath": None, "parameters": {},
            "operations": sorted(operations, key=lambda o: o["id"]),
            "schemas": dict(sorted(schemas.items()))}
    return json.dumps(spec, indent=1) + "\n"


def main(argv: list[str]) -> None:
    (output,) = argv
    Path(output).write_text(generate(package_root()))


if __name__ == "__main__":
    main(sys.argv[1:])
