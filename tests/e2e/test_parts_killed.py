"""A part of the stack killed from outside while a real agent runs: the proxy's workers, the
replica server, the sandbox's container. The stack starts the part again at once, the run ends
with one line naming what died, everything the agent saw acknowledged is stored, the audit chain
still verifies, the next run works, and nothing of the run is left (containers, netns, veths,
nft tables). (The whole stack killed, and Ctrl-C: tests/e2e/test_interrupts.py.)"""

from __future__ import annotations

import os
import re
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest

from detour_core.paths import StatePaths
from detour.stack import running_stack
from mock_services.store import EnvironmentStore
from tests.conftest import needs_docker
from tests.e2e.test_cli import DETOUR, Server, serving
from tests.e2e.test_interrupts import read_until
from tests.postgres import store_options

# Posts until it has seen a call fail and three more succeed, or 40 in all: a part killed under it
# costs it the calls under way, which it notes; it is not meant to give up.
AGENT = """
import os, time
from slack_sdk import WebClient
slack = WebClient(token=os.environ["SLACK_TOKEN"])
failed = after = 0
for n in range(40):
    try:
        slack.chat_postMessage(channel="general", text=f"tick {n}")
        print(f"posted {n}", flush=True)
        after += 1 if failed else 0
    except Exception as e:
        failed += 1
        print(f"failed {n}: {type(e).__name__}", flush=True)
    if after >= 3:
        break
    time.sleep(0.1)
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory, request) -> Path:
    home = tmp_path_factory.mktemp("parts-killed") / "home"
    (home.parent / "tick_agent.py").write_text(AGENT)
    (home.parent / "hello.py").write_text("print('hello')\n")
    with served(home, request):
        yield home


@contextmanager
def served(home: Path, request: pytest.FixtureRequest) -> Iterator[Server]:
    """`detour serve` for the home, its environments in Postgres in the Makefile's Postgres pass."""
    with store_options(request) as options, serving(home, *options) as server:
        yield server


def detour(home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([DETOUR, *args], env=os.environ | {"DETOUR_HOME": str(home)}, cwd=home.parent,
                          capture_output=True, text=True, timeout=300)


def start(home: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([DETOUR, *args], env=os.environ | {"DETOUR_HOME": str(home)}, cwd=home.parent,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def stack_parts(home: Path, word: str) -> list[psutil.Process]:
    """The stack's own processes whose command line holds `word` (proxy_addons, uvicorn)."""
    serve = psutil.Process(running_stack(StatePaths(home)).pid)
    return [p for p in serve.children() if any(word in w for w in p.cmdline())]


def killed_mid_run(home: Path, run: subprocess.Popen, parts: list[psutil.Process]) -> tuple[str, str]:
    """Once the agent has posted thrice, SIGKILL to `parts`; then all the run printed."""
    seen = read_until(run, "posted 2")
    for part in parts:
        part.kill()
    out, err = run.communicate(timeout=240)
    return seen + out, err


def sound(home: Path, out: str, err: str) -> str:
    """The run's environment, once its messages and audit chain are checked: every message the
    agent saw posted is stored, and none it was not told of but those whose call failed."""
    assert "Traceback" not in err, err
    env = re.search(r"detour: env (\S+), exit", err).group(1)
    posted = {f"tick {m}" for m in re.findall(r"^posted (\d+)$", out, re.M)}
    failed = {f"tick {m}" for m in re.findall(r"^failed (\d+):", out, re.M)}
    store = EnvironmentStore(StatePaths(home))
    texts = {r["message_text"] for r in store.diff(env).inserts if r.get("message_text", "").startswith("tick")}
    assert posted <= texts <= posted | failed
    verified = detour(home, "logs", "--verify", "--env", env)
    assert verified.returncode == 0 and "chain intact" in verified.stdout, verified.stdout + verified.stderr
    return env


def the_next_run_works(home: Path) -> None:
    again = detour(home, "run", "--backend", "process", "hello.py")
    assert again.returncode == 0 and again.stdout == "hello\n", again.stderr


def test_proxy_workers_killed_mid_run_are_started_again_and_the_run_says_so(home):
    workers = stack_parts(home, "proxy_addons")
    assert workers
    run = start(home, "run", "--backend", "process", "tick_agent.py")
    out, err = killed_mid_run(home, run, workers)
    assert run.returncode == 0, err
    [line] = [line for line in err.splitlines() if "the stack lost" in line]
    for worker in workers:
        assert f"(pid {worker.pid}, signal SIGKILL)" in line
    assert line.endswith("started them again: requests under way there failed" if len(workers) > 1
                         else "started it again: requests under way there failed")
    sound(home, out, err)
    assert {p.pid for p in stack_parts(home, "proxy_addons")}.isdisjoint(w.pid for w in workers)
    the_next_run_works(home)


def test_a_replica_server_killed_mid_run_is_started_again_and_the_run_says_so(home):
    """The full CLI path (--timeout): the run goes on through the proxy; the quick path after it
    needs the replica server back."""
    [replicas] = stack_parts(home, "uvicorn")
    run = start(home, "run", "--timeout", "300", "--backend", "process", "tick_agent.py")
    out, err = killed_mid_run(home, run, [replicas])
    assert run.returncode == 0, err
    [line] = [line for line in err.splitlines() if "the stack lost" in line]
    assert f"replicas (pid {replicas.pid}, signal SIGKILL)" in line
    sound(home, out, err)
    the_next_run_works(home)


@needs_docker
def test_a_container_killed_from_outside_ends_the_run_in_one_line_and_leaves_nothing(home):
    from sandbox.docker import LABEL, OWNER_LABEL, connect_engine
    from sandbox.netns import known_sandboxes
    [replicas] = stack_parts(home, "uvicorn")  # the quick path's runs are the replica server's
    engine = connect_engine()
    run = start(home, "run", "--backend", "docker", "tick_agent.py")
    seen = read_until(run, "posted 2")
    [container] = engine.containers.list(filters={"label": f"{OWNER_LABEL}={replicas.pid}"})
    sid = container.labels[LABEL]
    container.kill()  # as `docker kill` does
    out, err = run.communicate(timeout=240)
    assert run.returncode == 137, err
    assert err.splitlines()[-2].startswith("detour: the sandbox's container was stopped from outside detour "
                                           "(signal SIGKILL: docker kill, stop or rm -f) after "), err
    sound(home, seen + out, err)
    assert engine.containers.list(all=True, filters={"label": f"{LABEL}={sid}"}) == []
    assert sid not in known_sandboxes()  # its netns, nft table, cgroup and record
    assert not Path(f"/sys/class/net/dt{sid}h").exists()
