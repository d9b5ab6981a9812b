"""Ctrl-C and SIGTERM to detour's commands while a real agent runs: the agent stops (no process
of it is left, and it posts nothing more), one line says what was done, the output so far and
the environment's state are kept, and what the user did not ask to keep is gone. No traceback.

One `detour serve` for the module: a plain `detour run FILE` goes to it (the quick path, where
the stack runs the sandbox and must be told to stop it); `--timeout` takes the full CLI path."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import tempfile
from pathlib import Path

import psutil
import pytest

from detour.cli.doctor import proxy_user_leftovers
from detour_core.paths import StatePaths
from mock_services.store import EnvironmentStore
from sandbox import temp_folders
from sandbox.backends import open_backend
from tests.conftest import needs_docker
from tests.e2e.test_cli import DETOUR, serving
from tests.waiting import until

# Posts a message, says so, and goes on until stopped: what it printed is what it did.
AGENT = """
import os, time
from slack_sdk import WebClient
slack = WebClient(token=os.environ["SLACK_TOKEN"])
for n in range(10_000):
    slack.chat_postMessage(channel="general", text=f"tick {n}")
    print(f"posted {n}", flush=True)
    time.sleep(0.1)
"""
SUITE = {"name": "forever", "tests": [
    {"id": f"t{n}", "name": f"test {n}", "prompt": "post", "seed_template": "slack_default",
     "assertions": [{"diff_type": "added", "entity": "messages", "expected_count": 1}]} for n in (1, 2)]}


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("interrupts") / "home"
    (home.parent / "forever_agent.py").write_text(AGENT)
    with serving(home):
        yield home


def start(home: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([DETOUR, *args], env=os.environ | {"DETOUR_HOME": str(home)}, cwd=home.parent,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def read_until(proc: subprocess.Popen, after: str) -> str:
    """Its stdout, read as it streams, until `after` shows in it."""
    seen = ""
    while after not in seen:
        line = proc.stdout.readline()
        assert line, f"the run ended before printing {after!r}: {seen!r} {proc.communicate()[1]}"
        seen += line
    return seen


def interrupted(proc: subprocess.Popen, number: int, after: str) -> tuple[str, str]:
    """Once `after` shows in its stdout, the signal; then all it printed."""
    seen = read_until(proc, after)
    proc.send_signal(number)
    out, err = proc.communicate(timeout=120)
    return seen + out, err


def folders_made_by(pids: set[int], home: Path) -> list[Path]:
    """The temporary folders (a process-backend run's, code written to a file) these processes made."""
    places = [Path(tempfile.gettempdir()), StatePaths(home).runs_dir]
    return [path for place in places if place.is_dir() for path in place.iterdir()
            if (named := temp_folders.NAMED.fullmatch(path.name)) and int(named[1]) in pids]


def agents_left() -> list[str]:
    """Processes still running this module's agent, anywhere on the machine (detour's own aside)."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        words = process.info["cmdline"] or []
        if any(w.endswith("forever_agent.py") for w in words) and not any(w.endswith("/detour") for w in words):
            found.append(" ".join(words))
    return found


@pytest.mark.parametrize("path, number, backend", [
    ("quick", signal.SIGINT, "process"), ("full", signal.SIGTERM, "process"),
    pytest.param("full", signal.SIGINT, "docker", marks=needs_docker)])
def test_a_stopped_run_stops_its_agent_and_says_what_it_did(home, path, number, backend):
    extra = ["--timeout", "300"] if path == "full" else []
    proc = start(home, "run", *extra, "--backend", backend, "forever_agent.py")
    out, err = interrupted(proc, number, "posted 2")
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    env = re.search(r"detour: env (\S+), exit \d+, killed: interrupted", err).group(1)
    assert err.rstrip().splitlines()[-1].startswith("detour: interrupted: stopped the program after ")
    assert err.rstrip().endswith(f"environment {env} keeps what it did")
    posted = [line for line in out.splitlines() if line.startswith("posted ")]
    assert posted == [f"posted {n}" for n in range(len(posted))] and len(posted) >= 3  # the output so far, kept
    assert agents_left() == []
    if backend == "docker":
        from sandbox.docker import OWNER_LABEL, connect_engine  # this run's containers, not another test's
        assert connect_engine().containers.list(all=True, filters={"label": f"{OWNER_LABEL}={proc.pid}"}) == []
    store = EnvironmentStore(StatePaths(home))
    texts = {row["message_text"] for row in store.diff(env).inserts if row.get("message_text", "").startswith("tick")}
    # Every message it said it posted is there (a last one may have landed as the signal came).
    assert {f"tick {n}" for n in range(len(posted))} <= texts and len(texts) <= len(posted) + 1


def test_a_stopped_suite_stops_its_agent_reports_what_ran_and_deletes_its_environments(home):
    suite = home.parent / "forever.json"
    suite.write_text(json.dumps(SUITE))
    before = {e.env_id for e in EnvironmentStore(StatePaths(home)).list()}
    proc = start(home, "suite", "run", str(suite), "--agent", f"python3 {home.parent / 'forever_agent.py'}",
                 "--backend", "process", "--json")
    until(lambda: any(e.env_id not in before for e in EnvironmentStore(StatePaths(home)).list()), proc,
          "no test's environment was made")
    until(lambda: agents_left(), proc, "the agent never started")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == ("detour: interrupted: 1 of 2 tests ran (1 stopped, none counted as "
                                            "passed); their environments deleted")
    [test] = json.loads(out)["tests"]
    assert (test["id"], test["killed_reason"], test["passed"]) == ("t1", "interrupted", False)
    assert agents_left() == []
    assert {e.env_id for e in EnvironmentStore(StatePaths(home)).list()} == before


def test_the_suite_table_says_why_each_test_failed(home):
    """The first failing assertion of a test the agent ran, and the words for one it never started."""
    suite = home.parent / "why.json"
    suite.write_text(json.dumps({**SUITE, "tests": SUITE["tests"][:1]}))
    done = subprocess.run([DETOUR, "suite", "run", str(suite), "--agent", "true", "--backend", "process"],
                          env=os.environ | {"DETOUR_HOME": str(home), "COLUMNS": "250"}, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    row = next(line for line in done.stdout.splitlines() if " t1 " in line)
    assert "#0 added messages: " in row and "expected 1" in row, done.stdout


def test_a_stopped_compare_stops_both_runs_and_keeps_their_environments(home):
    proc = start(home, "compare", "forever_agent.py", "--backend", "process", "--json")
    until(agents_left, proc, "the agent never started")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "Traceback" not in err, err
    result = json.loads(out)
    assert (result["proxy"]["killed_reason"], result["rewrite"]["killed_reason"]) == ("interrupted", "interrupted")
    assert err.strip().splitlines()[-1] == (
        f"detour: interrupted: stopped both runs; environments {result['proxy']['env_id']} (proxy) and "
        f"{result['rewrite']['env_id']} (rewrite) keep what they did")
    assert agents_left() == []
    store = EnvironmentStore(StatePaths(home))
    assert store.get(result["proxy"]["env_id"]) and store.get(result["rewrite"]["env_id"])


def test_a_stack_killed_mid_run_ends_it_with_a_clear_error_and_a_sound_audit_chain(home):
    """Last in the module: it kills the stack. The run ends in one line, the agent is gone, every
    message it said it posted is stored (at most the one in flight besides), the audit chain
    verifies, and the folders the stack's run left are removed by the next process to open a
    backend (it proves their maker dead). (`detour doctor` looks at every sandbox on the machine: not here, outside the
    exclusive group.)"""
    proc = start(home, "run", "--backend", "process", "forever_agent.py")
    seen = read_until(proc, "posted 2")
    serve = psutil.Process(json.loads(StatePaths(home).stack_file.read_text())["pid"])
    parts = [serve, *serve.children()]
    for part in parts:  # the stack's own processes: the sandbox below them is sent nothing
        part.kill()
    try:
        out, err = proc.communicate(timeout=120)
    finally:  # what the killed stack's proxy user left (its firewall table, socket, cgroups): this test's to remove
        if (home / "proxy.uid").exists():
            proxy_user_leftovers(fix=True, uid=int((home / "proxy.uid").read_text()))
        left = folders_made_by({part.pid for part in parts}, home)
        open_backend("process", StatePaths(home))  # as the next run does: what dead detours left goes
    assert left, "the killed stack's run left no folder: nothing was checked"
    assert folders_made_by({part.pid for part in parts}, home) == []
    assert proc.returncode == 2 and "Traceback" not in err, err
    assert err.strip().splitlines()[-1].startswith("detour: the stack went away during the run")
    posted = [line for line in (seen + out).splitlines() if line.startswith("posted ")]
    agents = [p for p in psutil.process_iter(["cmdline"])
              if any(w.endswith("forever_agent.py") for w in p.info["cmdline"] or [])]
    assert psutil.wait_procs(agents, timeout=60)[1] == [], "the agent outlived its stack"
    store = EnvironmentStore(StatePaths(home))
    env = store.list()[-1]  # the newest: this run's
    texts = {r["message_text"] for r in store.diff(env.env_id).inserts if r.get("message_text", "").startswith("tick")}
    assert {f"tick {n}" for n in range(len(posted))} <= texts and len(texts) <= len(posted) + 1
    detour_env = os.environ | {"DETOUR_HOME": str(home)}
    verified = subprocess.run([DETOUR, "logs", "--verify", "--env", env.env_id], env=detour_env,
                              capture_output=True, text=True, timeout=120)
    assert verified.returncode == 0 and "chain intact" in verified.stdout, verified.stdout + verified.stderr
