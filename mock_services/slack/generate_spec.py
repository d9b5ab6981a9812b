"""The committed generator: Slack's official Python client (PyPI `slack_sdk`, which the project
installs) -> the list of Web API methods the catalogue answers.

slack_sdk's `WebClient` has one method per Web API method, each ending in
`self.api_call("<method>", ...)`. This reads the client's source with `ast` (no import, no
network; a comment or a keyword before the name does not hide it, as it hid `files.remote.add`
from a regular expression) and keeps, per method: the arguments the client requires and which
arguments travel as multipart file parts. It keeps no prose.

    python -m mock_services.slack.generate_spec mock_services/slack/spec/slack_sdk.json
"""

from __future__ import annotations

import ast
import json
import sys
from importlib import metadata
from pathlib import Path


def client_source() -> Path:
    try:
        import slack_sdk
    except ImportError:
        raise SystemExit("slack_sdk is not installed: pip install slack_sdk") from None
    return Path(slack_sdk.__file__).parent / "web" / "client.py"


def _api_call(function: ast.FunctionDef) -> ast.Call | None:
    """The `self.api_call("name", ...)` that the client's method ends in."""
    for node in ast.walk(function):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "api_call"
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            return node
    return None


def _file_parts(function: ast.FunctionDef) -> list[str]:
    """The keys of the `files` dict (`files = {...}` or `files={...}`): the arguments sent as
    multipart parts."""
    parts: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "files" for t in node.targets):
            given = node.value
        elif isinstance(node, ast.keyword) and node.arg == "files":
            given = node.value
        else:
            continue
        if isinstance(given, ast.Dict):
            parts.update(k.value for k in given.keys if isinstance(k, ast.Constant))
    return sorted(parts)


def describe(function: ast.FunctionDef) -> dict:
    args = function.args
    required = [a.arg for a, default in zip(args.kwonlyargs, args.kw_defaults) if default is None]
    return {"required": required, "file_parts": _file_parts(function)}


def methods(source: Path) -> dict[str, dict]:
    tree = ast.parse(source.read_text())
    client = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "WebClient")
    found = {}
    for function in client.body:
        if isinstance(function, ast.FunctionDef) and (call := _api_call(function)) is not None:
            found[call.args[0].value] = describe(function)
    return dict(sorted(found.items()))


def spec() -> dict:
    return {"source": f"slack_sdk {metadata.version('slack_sdk')}", "methods": methods(client_source())}


def main(argv: list[str]) -> None:
    if len(argv) != 2:
        raise SystemExit(__doc__.strip().splitlines()[-1].strip())
    Path(argv[1]).parent.mkdir(parents=True, exist_ok=True)
    Path(argv[1]).write_text(json.dumps(spec(), indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv)
