"""The `detour` console entry point. `detour run FILE` goes in one request to the running
stack, importing almost nothing; every other command goes to the full CLI (detour.cli).

The full CLI costs ~0.4 s in imports alone (typer, pydantic models, cryptography) before it
runs anything. When `detour serve` runs for this $DETOUR_HOME and the command is a plain
`run` of one program file, the stack's replica server runs it instead (POST
/api/platform/run, with a warm sandbox and runtime), and this module prints what the full
CLI would. Anything else (other options, a venv or node_modules that would choose the
runtime, an older server) goes to the full CLI.
"""

from __future__ import annotations

import http.client
import json
import os
import sys
from pathlib import Path

from detour.run_options import DEFAULT_TEMPLATE, JSON_FLAG, RUN_OPTIONS
from detour.run_summary import report
from detour_core.credentials import api_key
from detour_core.paths import StatePaths

PROCESS_WARNING = ("detour: warning: the namespace backend cannot run here: running with the process backend, "
                   "which is not isolation (code that ignores proxy variables is not captured)")


def parse(argv: list[str]) -> tuple[dict, Path] | None:
    """`run [--env E | --template T] [--backend B] [--mode M] [--json] FILE`, or None."""
    if not argv or argv[0] != "run":
        return None
    options: dict = {}
    words = argv[1:]
    while len(words) > 1:
        word = words.pop(0)
        name, _, value = word.partition("=")
        if word == JSON_FLAG:
            options["json"] = True
        elif name in RUN_OPTIONS and (value or words[:-1]):
            options[RUN_OPTIONS[name].field] = value or words.pop(0)
        else:
            return None
    if len(words) != 1 or words[0].startswith("-") or ("env" in options and "template" in options):
        return None
    program = Path(os.path.abspath(os.path.expanduser(words[0])))
    if not program.is_file() or (program.parent / "node_modules").exists() or os.environ.get("VIRTUAL_ENV"):
        return None
    return options, program


def quick_run(argv: list[str]) -> int | None:
    """The exit code, or None when the full CLI should handle the command."""
    parsed = parse(argv)
    if parsed is None:
        return None
    options, program = parsed
    state = StatePaths.default()
    if program.resolve().is_relative_to(state.home.resolve()):
        return None  # a file of detour's state: the full CLI refuses it by name
    try:
        stack = json.loads(state.stack_file.read_text())
        os.kill(stack["pid"], 0)
    except (OSError, ValueError, KeyError):
        return None
    host, port = stack.get("replica_host") or stack["host"], stack["replica_port"]
    try:
        body = {"code": program.read_text(), "filename": program.name,
                "template": options.get("template", DEFAULT_TEMPLATE),
                **{k: options[k] for k in ("env", "backend", "mode") if k in options}}
        conn = http.client.HTTPConnection(host, port, timeout=None)
        conn.request("POST", "/api/platform/run", json.dumps(body),
                     {"Content-Type": "application/json", "X-API-Key": api_key(state)})
        answer = conn.getresponse()
        text = answer.read()
    except (OSError, UnicodeDecodeError):
        return None
    if answer.status in (400, 404, 422, 503):
        return None  # nothing ran: the full CLI runs it, or says what is wrong in its words
    if answer.status != 200:
        print(f"detour: the stack's run API failed ({answer.status}): {text[:500].decode(errors='replace')}",
              file=sys.stderr)
        return 2
    result = json.loads(text)
    if result["backend"] == "process" and options.get("backend", "auto") == "auto":
        print(PROCESS_WARNING, file=sys.stderr)
    return report(result, options.get("json", False))


def main() -> None:
    code = quick_run(sys.argv[1:])
    if code is not None:
        raise SystemExit(code)
    from detour.cli import main as full
    full()
