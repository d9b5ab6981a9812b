"""What the harness programs share (each runs in its harness's venv, beside detour-client): detour's
OpenEnv server over a stack, on a free loopback port in a thread, and the two policies' actions."""

from __future__ import annotations

import json
import threading
import time

import uvicorn

from detour_client import StackClient


def serve(url: str, key: str, suite_path: str) -> str:
    """detour_client.openenv's app for the suite over the stack at `url`; its base URL."""
    from detour_client.openenv import make_app  # here: a harness's venv without OpenEnv imports `policies` too

    app = make_app(StackClient(url, api_key=key), json.load(open(suite_path)), backend="namespace")
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"


def policies(agent_path: str, idle: str) -> dict:
    """Each policy's program for a test: the scripted agent told its test, or the idle one."""
    source = open(agent_path).read()
    return {"scripted": lambda test: f"import os\nos.environ['DETOUR_TEST_ID'] = {test!r}\n{source}",
            "idle": lambda test: idle}
