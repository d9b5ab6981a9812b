"""A rollouts API caller that goes away: a dropped HTTP connection, and Ctrl-C in the Python
client (detour_client). Its rollouts under way stop (no agent process is left), are scored as not
passed, and their environments and sandboxes go; what finished before is the caller's.

One `detour serve` for the module; the agent finishes at once for t1 and runs until stopped for t2."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import psutil
import pytest

from detour_core.paths import StatePaths
from mock_services.store import EnvironmentStore
from sandbox.netns import known_sandboxes, owner
from tests.e2e.test_cli import Server
from tests.e2e.test_interrupts import read_until
from tests.e2e.test_parts_killed import served
from tests.waiting import until

AGENT = """
import os, time
from slack_sdk import WebClient
slack = WebClient(token=os.environ["SLACK_TOKEN"])
for n in range(1 if os.environ["DETOUR_TEST_ID"] == "t1" else 10_000):
    slack.chat_postMessage(channel="general", text=f"tick {n}")
    time.sleep(0.1)
"""
SUITE = {"name": "hung-up", "tests": [
    {"id": t, "name": t, "prompt": "post", "seed_template": "slack_default",
     "assertions": [{"diff_type": "added", "entity": "messages", "expected_count": 1}]} for t in ("t1", "t2")]}
# Far longer than the test waits for an agent to end: only a stop ends t2's.
HOURS = 3600
# A trainer's loop over the stack's rollouts, printing each outcome as it comes.
TRAINER = """
import json, sys
from detour_client.http import StackClient
url, key, suite, agent, limits = sys.argv[1:]
client = StackClient(url, key)
try:
    for outcome in client.rollouts(json.loads(suite), ["python3", agent], workers=2, limits=json.loads(limits)):
        print(json.dumps({"id": outcome.id, "passed": outcome.passed}), flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""


@pytest.fixture(scope="module")
def stack(tmp_path_factory, request) -> Server:
    home = tmp_path_factory.mktemp("hung-up") / "home"
    (home.parent / "agent.py").write_text(AGENT)
    with served(home, request) as server:
        yield server


def agents(home: Path) -> list[psutil.Process]:
    """This module's agent processes that play t2 (the one that runs until stopped)."""
    found = []
    for process in psutil.process_iter(["cmdline", "environ"]):
        try:
            if str(home.parent / "agent.py") in (process.info["cmdline"] or []) and \
                    (process.info["environ"] or {}).get("DETOUR_TEST_ID") == "t2":
                found.append(process)
        except psutil.Error:
            continue
    return found


def replica_server(home: Path) -> int:
    serve = psutil.Process(json.loads(StatePaths(home).stack_file.read_text())["pid"])
    return next(p.pid for p in serve.children() if "uvicorn" in " ".join(p.cmdline()))


def nothing_left(home: Path, playing: list[psutil.Process], before: set[str]) -> None:
    """The agents end, and (once scored) their environments and the server's sandboxes go."""
    assert psutil.wait_procs(playing, timeout=300)[1] == [], "an agent ran on for a caller that was gone"
    store = EnvironmentStore(StatePaths(home))
    server = replica_server(home)
    until(lambda: {e.env_id for e in store.list()} == before and
          not [sid for sid in known_sandboxes() if owner(sid) == server], threading.main_thread(),
          "the rollout's environment or sandbox was left")


def test_a_dropped_connection_stops_its_rollout_and_leaves_nothing(stack):
    home = stack.home
    url, key = stack.platform()
    before = {e.env_id for e in EnvironmentStore(StatePaths(home)).list()}
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port))
    conn.request("POST", "/api/platform/rollouts", json.dumps({
        "suite": SUITE, "test": "t2", "agent": ["python3", str(home.parent / "agent.py")],
        "limits": {"timeout_s": HOURS}}), {"Content-Type": "application/json", "X-API-Key": key})
    playing = until(lambda: agents(home), threading.main_thread(), "the agent never started")
    conn.close()  # the caller hangs up without reading the answer
    nothing_left(home, playing, before)


def test_ctrl_c_in_the_python_client_stops_its_rollouts_and_keeps_what_finished(stack):
    home = stack.home
    url, key = stack.platform()
    before = {e.env_id for e in EnvironmentStore(StatePaths(home)).list()}
    trainer = subprocess.Popen([sys.executable, "-c", TRAINER, url, key, json.dumps(SUITE),
                                str(home.parent / "agent.py"), json.dumps({"timeout_s": HOURS})],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        seen = read_until(trainer, '"id": "t1"')
        playing = until(lambda: agents(home), trainer, "t2's agent never started")
        trainer.send_signal(signal.SIGINT)
        out, err = trainer.communicate(timeout=300)
    finally:
        trainer.kill()  # (it has ended, unless the test failed)
    assert trainer.returncode == 0 and "Traceback" not in err, err
    assert json.loads(seen.splitlines()[0]) == {"id": "t1", "passed": True}  # what finished is the caller's
    assert out.strip() == "interrupted"
    nothing_left(home, playing, before)
