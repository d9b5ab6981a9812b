"""The namespace backend's warm interpreter (sandbox/warm.py): Python programs forked from a
server with the runtime's libraries imported. A run sees nothing a previous run did; the
server holds nothing of any run's; the agent runs under its sandbox's uid with no
capabilities; the server and its forks end with the process that started them."""

import contextlib
import json
import os
import re
import resource
import threading
from pathlib import Path

import psutil
import pytest

from detour.runner import run_in_environment
from sandbox import warm
from sandbox.base import Limits
from sandbox.namespace import FIRST_UID, NamespaceSandbox, requirements_missing

pytestmark = pytest.mark.skipif(bool(requirements_missing()), reason="the namespace backend cannot run here")

CANARY = """
import json, os, sys
warm = "requests" in sys.modules  # imported by the server, never by a fresh interpreter
import requests
seen = {"warm": warm, "attribute": hasattr(requests, "canary"), "patched": requests.get.__name__,
        "variable": os.environ.get("CANARY"), "file": os.path.exists("/tmp/canary"),
        "home": os.listdir(os.environ["HOME"]) != [os.path.basename(__file__)], "path": sys.path[-1] == "/canary"}
requests.canary = 1
requests.get = lambda *a, **k: None
os.environ["CANARY"] = "1"
open("/tmp/canary", "w").write("1")
open(os.path.join(os.environ["HOME"], "left"), "w").write("1")
sys.path.append("/canary")
status = dict(line.split(":\\t", 1) for line in open("/proc/self/status").read().splitlines() if ":\\t" in line)
seen["ids"] = [status["Uid"].split(), status["Gid"].split(), status["Groups"].strip()]
seen["caps"] = sorted({status[k].strip() for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")})
seen["no_new_privs"] = status["NoNewPrivs"].strip()
seen["fds"] = sorted(os.listdir("/proc/self/fd"))
seen["ok"] = requests.post("https://slack.com/api/auth.test", headers={"Authorization": "Bearer xoxb-1"}).json()["ok"]
print(json.dumps(seen))
"""


@pytest.fixture(scope="module")
def sandbox(live_stack):
    sandbox = NamespaceSandbox(live_stack.state)
    try:
        yield sandbox
    finally:
        sandbox.close()


@pytest.fixture(scope="module")
def server(live_stack, sandbox):
    """The runtime's server, started by the process's second (cold) run, not its first."""
    for _ in range(2):
        live_stack.run(live_stack.env(), "print(1)", ".py", sandbox=sandbox)
    server = warm.server_for(sandbox.runtime)
    assert server.ready.wait(120)
    return server


def gone(pid: int) -> bool:
    """Ended: no such process, or one that is dead and not yet reaped by whoever adopted it."""
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _canary(live_stack, sandbox) -> dict:
    result = live_stack.run(live_stack.env(), CANARY, ".py", sandbox=sandbox)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_a_run_sees_nothing_of_the_one_before(live_stack, sandbox, server):
    first, second = _canary(live_stack, sandbox), _canary(live_stack, sandbox)
    assert first["warm"] and second["warm"]
    assert {k: second[k] for k in ("attribute", "patched", "variable", "file", "home", "path", "ok")} == {
        "attribute": False, "patched": "get", "variable": None, "file": False, "home": False, "path": False,
        "ok": True}
    assert int(second["ids"][0][0]) >= FIRST_UID and len(set(second["ids"][0] + second["ids"][1])) == 1
    assert second["ids"][2] == "" and second["caps"] == ["0000000000000000"] and second["no_new_privs"] == "1"
    assert second["fds"] == ["0", "1", "2", "3"]  # stdio, and listdir's own


def _memory(pid: int) -> bytes:
    """Every readable region of a process's memory."""
    chunks = []
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
        for line in maps:
            span, perms = line.split()[:2]
            if perms[0] != "r" or line.rstrip().endswith("[vvar]"):
                continue
            start, end = (int(x, 16) for x in span.split("-"))
            try:
                mem.seek(start)
                chunks.append(mem.read(end - start))
            except OSError:
                continue
    return b"".join(chunks)


def test_the_server_holds_no_secret_of_a_run(live_stack, sandbox, server):
    result = live_stack.run(live_stack.env(), "import json, os; print(json.dumps(dict(os.environ)))", ".py",
                            sandbox=sandbox)
    env = json.loads(result.stdout)
    secrets = {value for name, value in env.items() if re.search("TOKEN|KEY|SECRET|PROXY", name) and len(value) > 16}
    secrets |= {re.sub(r"^http://|@.*$", "", value) for value in secrets if value.startswith("http://")}
    assert len(secrets) >= 3, env
    pid = server.proc.pid
    assert Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")[:-1] == [
        b"PATH=" + sandbox.runtime.path.encode(), b"LANG=C.UTF-8", b"PYTHONDONTWRITEBYTECODE=1"]
    memory = _memory(pid)
    assert b"slack_sdk" in memory  # what it imported is there to be found
    assert not [s for s in secrets if s.encode() in memory]


def _with_children(process: psutil.Process) -> list[psutil.Process]:
    """Its children that have children (others' forks come and go meanwhile)."""
    found = []
    for child in process.children():
        with contextlib.suppress(psutil.NoSuchProcess):
            if child.children():
                found.append(child)
    return found


def test_a_bare_python3_is_forked_warm(live_stack, sandbox, server):
    """`python3 agent.py`, as the docs and most agents write it: the sandbox's PATH finds the
    runtime's own interpreter there, so the run is forked from the server too."""
    program = live_stack.scripts / "bare_python3.py"
    program.write_text('import sys; print("requests" in sys.modules)')
    result = run_in_environment(live_stack.state, live_stack.info, live_stack.env(), sandbox,
                                ["python3", str(program)], program=program)
    assert result.exit_code == 0 and result.stdout.strip() == "True", result.stderr


def test_a_run_is_forked_warm_while_this_process_holds_over_a_thousand_descriptors(live_stack, sandbox, server):
    """A run API serving a few hundred sandboxes holds descriptors numbered past 1023, which
    select() refuses: the run's pipes to its holder are waited on with poll. Before, the holder
    was killed by SIGPIPE (exit 141) and the run lost."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        result = live_stack.run(live_stack.env(), 'import sys; print("requests" in sys.modules)', ".py",
                                sandbox=sandbox)
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert result.exit_code == 0 and result.stdout.strip() == "True", result.stderr


def test_the_agent_ends_with_its_server(live_stack, sandbox, server):
    """A server killed mid-run takes the run with it (its fork dies, the holder's pipe closes),
    and the next run starts one again (running cold meanwhile); a server ends with the detour
    that started it."""
    results = []
    thread = threading.Thread(target=lambda: results.append(live_stack.run(
        live_stack.env(), "import time; time.sleep(60)", ".py", sandbox=sandbox, limits=Limits(timeout_s=50))))
    thread.start()
    forks = []
    while thread.is_alive() and not forks:  # the server's fork, and the agent it started
        forks = _with_children(psutil.Process(server.proc.pid))
    agent = forks[0].children()[0]
    server.proc.kill()
    thread.join()
    assert (results[0].exit_code, results[0].killed_reason) == (125, None)
    assert gone(agent.pid)
    assert live_stack.run(live_stack.env(), "print(2)", ".py", sandbox=sandbox).stdout == "2\n"
    assert server.ready.wait(120) and server.proc.poll() is None
    server.proc.stdin.close()  # as when the detour that started it dies
    assert server.proc.wait(60) == 0 and gone(forks[0].pid)
    warm.stop_all()
    assert server.proc is None
