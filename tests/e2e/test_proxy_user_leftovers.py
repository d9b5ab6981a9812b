"""What a stack's proxy user leaves (detour/proxy_user.py, #49): a stack that stops leaves no
nftables table, broker socket or cgroup, also when another stack of its home stopped first
with destinations they share; what a killed stack left, `detour doctor` removes, and nothing
of a stack still running."""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from detour.background import stop_launch
from detour.cli.doctor import proxy_user_leftovers
from detour.proxy_user import BROKERS, TABLE_PREFIX
from detour.stack import Stack, running_stack
from detour_core.paths import StatePaths
from sandbox.cgroups import ROOT

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("nft"), reason="the proxy user needs root and nftables")

SHARED = {"api.example.com": "127.0.0.1"}  # both stacks open 127.0.0.1 on the policy ports: shared elements
KILLABLE = """
import sys
from pathlib import Path
from detour.stack import Stack, running_stack
from detour_core.paths import StatePaths
Stack(StatePaths(Path(sys.argv[1])).ensure(), parts=("proxy",)).start()
print("up", flush=True)
sys.stdin.read()
"""


def made(home: Path, pid: int) -> set[str]:
    """The table of the home's proxy uid, and the sockets and cgroups of its stack in process `pid`."""
    uid = (home / "proxy.uid").read_text()
    tables = subprocess.run(["nft", "list", "tables", "inet"], capture_output=True, text=True).stdout.split()
    found = {name for name in tables if name == f"{TABLE_PREFIX}{uid}"}
    found |= {str(p) for p in BROKERS.glob(f"{uid}-{pid}-*.sock")}
    return found | {str(p) for base in (ROOT, ROOT / "memory", ROOT / "pids", ROOT / "cpuacct")
                    for p in base.glob(f"detour.proxy-{uid}-*-{pid}")}


@pytest.fixture(scope="module")
def running(tmp_path_factory) -> Iterator[Path]:
    """A stack that runs through the module: doctor leaves what it made."""
    home = tmp_path_factory.mktemp("running") / "home"
    with Stack(StatePaths(home).ensure(), parts=("proxy",)):
        yield home


def test_stopped_stacks_of_one_home_leave_no_table_socket_or_cgroup(running, tmp_path):
    state = StatePaths(tmp_path / "home").ensure()
    first, second = Stack(state, parts=("proxy",), upstream_hosts=SHARED), Stack(state, parts=("proxy",), upstream_hosts=SHARED)
    try:
        first.start()
        second.start()
        during = made(state.home, os.getpid())
        assert {n for n in during if n.startswith(TABLE_PREFIX)} and len([n for n in during if n.endswith(".sock")]) == 2
        first.stop()
        assert any(n.startswith(TABLE_PREFIX) for n in made(state.home, os.getpid()))  # the second still runs
        socket.create_connection(("127.0.0.1", second.info.proxy_port), timeout=5).close()  # its proxy too
    finally:
        first.stop()
        second.stop()
    assert made(state.home, os.getpid()) == set()
    assert made(running, os.getpid())  # the other home's stack keeps its own


def test_doctor_removes_what_a_killed_stack_left_and_nothing_of_a_running_one(running, tmp_path):
    home = tmp_path / "home"
    killable = subprocess.Popen([sys.executable, "-c", KILLABLE, str(home)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True)
    try:
        assert killable.stdout.readline() == "up\n"
        parts = [psutil.Process(killable.pid), *psutil.Process(killable.pid).children(recursive=True)]
        left = made(home, killable.pid)
        assert len(left) == 2 + len({p for p in left if "detour.proxy-" in p})  # its table, socket, cgroups
        for part in parts:
            part.send_signal(signal.SIGKILL)
        psutil.wait_procs(parts)
        alive = made(running, os.getpid())
        assert made(home, killable.pid) == left  # nothing took them away

        removed = proxy_user_leftovers(fix=True)
        assert made(home, killable.pid) == set()
        named = {what.split()[-1] for what in removed}  # "nftables table NAME", "broker socket PATH", "cgroup PATH"
        assert named >= left
        assert made(running, os.getpid()) == alive and not named & alive
    finally:
        killable.kill()
        killable.wait()
        proxy_user_leftovers(fix=True)


def test_a_background_launch_given_up_on_leaves_nothing(tmp_path):
    """A background stack that did not answer in time is stopped, not killed (detour/background.py):
    it leaves by its own SIGTERM path and takes its table, socket and cgroups with it."""
    home = tmp_path / "home"
    launch = subprocess.Popen([str(Path(sys.executable).parent / "detour"), "serve", "--only", "proxy", "--proxy-port", "0"],
                              env=os.environ | {"DETOUR_HOME": str(home)}, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        while running_stack(StatePaths(home)) is None and launch.poll() is None:
            time.sleep(0.1)
        assert made(home, launch.pid)  # up, with its proxy user's table, socket and cgroups
        stop_launch(launch)
        assert launch.returncode == 0 and made(home, launch.pid) == set()
    finally:
        if launch.poll() is None:
            launch.kill()
            launch.wait()
        proxy_user_leftovers(fix=True)
