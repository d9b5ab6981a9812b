"""Warm runs without `detour serve`: the first command starts a background stack for its
home, later commands reuse it, it leaves when idle, and one killed with -9 is replaced (its
proxy went with it: no port is left open without detour's addons)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from detour.stack import running_stack
from detour_core.paths import StatePaths

DETOUR = str(Path(sys.executable).parent / "detour")


@pytest.fixture
def home(tmp_path):
    """A home whose commands use a background stack; whatever one starts is stopped after."""
    home = tmp_path / "home"
    env = os.environ | {"DETOUR_HOME": str(home), "DETOUR_BACKGROUND": "on", "DETOUR_STACK_IDLE_S": "120"}
    program = tmp_path / "trivial.py"
    program.write_text("print('hi')\n")

    def detour(*args: str, **extra: str) -> subprocess.CompletedProcess:
        return subprocess.run([DETOUR, *args], env=env | extra, capture_output=True, text=True, timeout=120)
    detour.program, detour.state = program, StatePaths(home)
    yield detour
    detour("stack", "stop")


def closed(port: int, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) != 0:
                return True
        time.sleep(0.1)
    return False


def test_the_first_run_starts_a_background_stack_and_later_runs_reuse_it(home):
    first = home("run", "--backend", "process", str(home.program))
    assert first.returncode == 0 and first.stdout == "hi\n", first.stderr
    info = running_stack(home.state)
    assert info is not None
    second = home("run", "--backend", "process", str(home.program))
    assert second.returncode == 0 and second.stdout == "hi\n", second.stderr
    assert running_stack(home.state).pid == info.pid
    assert f"stack pid {info.pid}" in home("stack", "status").stdout
    assert home("stack", "stop").returncode == 0 and running_stack(home.state) is None
    assert closed(info.proxy_port)


def test_an_idle_background_stack_leaves_by_itself(home):
    assert home("run", "--backend", "process", str(home.program), DETOUR_STACK_IDLE_S="2").returncode == 0
    info = running_stack(home.state)
    deadline = time.monotonic() + 30
    while running_stack(home.state) is not None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert running_stack(home.state) is None and closed(info.proxy_port)


def test_a_killed_stack_is_replaced_and_leaves_no_port_open(home):
    assert home("run", "--backend", "process", str(home.program)).returncode == 0
    killed = running_stack(home.state)
    os.kill(killed.pid, signal.SIGKILL)
    assert closed(killed.proxy_port)  # the proxy dies with its stack
    again = home("run", "--backend", "process", str(home.program))
    assert again.returncode == 0 and again.stdout == "hi\n", again.stderr
    assert running_stack(home.state).pid != killed.pid
