"""The `detour` console entry point. `detour run FILE` goes in one request to the running
stack, importing almost nothing; every other command goes to the full CLI (detour.cli).

The full CLI costs ~0.2 s of CPU in imports (typer, pydantic and the models its options name;
each command imports the rest of what it uses when it runs) before it runs anything. When
`detour serve` runs for this $DETOUR_HOME and the command is a plain `run` of one program
file, the stack's replica server runs it instead (POST /api/platform/run, with a warm sandbox
and runtime), and this module prints what the full CLI would. Anything else (other options,
a venv or node_modules that would choose the runtime, an older server) goes to the full CLI.
"""

from __future__ import annotations

import http.client
import json
import os
import sys
import threading
import uuid
from pathlib import Path

from detour.interrupts import INTERRUPTED_EXIT, stopping_on_signals
from detour.run_options import DEFAULT_TEMPLATE, JSON_FLAG, RUN_OPTIONS
from detour.run_summary import interrupted, report
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
    server = StackServer(stack.get("replica_host") or stack["host"], stack["replica_port"], api_key(state))
    as_json, stop = options.get("json", False), threading.Event()
    try:
        body = {"code": program.read_text(), "filename": program.name,
                "template": options.get("template", DEFAULT_TEMPLATE), "run_id": server.run_id,
                "stream": not as_json, **{k: options[k] for k in ("env", "backend", "mode") if k in options}}
    except (OSError, UnicodeDecodeError):
        return None
    try:
        with stopping_on_signals(stop, server.stop):
            answer = server.post("/api/platform/run", body)
            if answer is None or answer.status in (400, 404, 422, 503):
                return None  # nothing ran: the full CLI runs it, or says what is wrong in its words
            if answer.status != 200:
                print(f"detour: the stack's run API failed ({answer.status}): "
                      f"{answer.read()[:500].decode(errors='replace')}", file=sys.stderr)
                return 2
            result = followed(answer, stop, server) if body["stream"] else json.loads(answer.read())
    except KeyboardInterrupt:  # a second signal: leave now
        print("detour: interrupted", file=sys.stderr)
        return INTERRUPTED_EXIT
    if "error" in result:
        print(f"detour: {result['error']}", file=sys.stderr)
        return 2
    if result["backend"] == "process" and options.get("backend", "auto") == "auto":
        print(PROCESS_WARNING, file=sys.stderr)
    code = report(result, as_json, streamed=body["stream"])
    if stop.is_set():
        print(interrupted(result), file=sys.stderr)
        return INTERRUPTED_EXIT
    return code


class StackServer:
    """The running stack's replica server, as this one run talks to it."""

    def __init__(self, host: str, port: int, key: str) -> None:
        self.host, self.port, self.key = host, port, key
        self.run_id = uuid.uuid4().hex
        self.stopped = False

    def post(self, path: str, body: dict | None = None) -> http.client.HTTPResponse | None:
        try:
            conn = http.client.HTTPConnection(self.host, self.port, timeout=None)
            conn.request("POST", path, json.dumps(body or {}),
                         {"Content-Type": "application/json", "X-API-Key": self.key})
            return conn.getresponse()
        except OSError:
            return None

    def stop(self) -> None:
        """Tell the stack to end this run's sandbox (a 404: it has not begun yet; asked again later)."""
        answer = self.post(f"/api/platform/runs/{self.run_id}/stop")
        self.stopped = answer is not None and answer.status == 200


def followed(answer: http.client.HTTPResponse, stop: threading.Event, server: StackServer) -> dict:
    """The run's output written as it comes; its last line (the result, or an error)."""
    streams = {"stdout": sys.stdout, "stderr": sys.stderr}
    for line in answer:
        item = json.loads(line)
        for name in item.keys() & streams.keys():
            streams[name].write(item[name])
            streams[name].flush()
        if "result" in item:
            return item["result"]
        if "error" in item:
            return item
        if stop.is_set() and not server.stopped:
            server.stop()
    return {"error": "the stack went away during the run (the output so far is above); the next command "
                     "starts one again"}


def main() -> None:
    code = quick_run(sys.argv[1:])
    if code is not None:
        raise SystemExit(code)
    from detour.cli import main as full
    full()
