"""detour_core/processes.py: when a process named by a pid counts as ended (what `detour stack
stop` waits for, and the proxy user's sweep asks of the pids in its sockets' names)."""

import subprocess
import sys
import time

import psutil

from detour_core.processes import ended, start_time


def test_a_process_runs_until_it_exits_and_a_zombie_has_ended():
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        started = start_time(child.pid)
        assert started is not None and not ended(child.pid) and not ended(child.pid, started)
        child.stdin.close()  # it exits; unreaped (no poll, no wait) it stays a zombie under its pid
        deadline = time.monotonic() + 30
        while not ended(child.pid, started) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert psutil.Process(child.pid).status() == psutil.STATUS_ZOMBIE
    finally:
        child.kill()
        child.wait()
    assert ended(child.pid, started)


def test_a_pid_that_names_a_process_started_at_another_time_names_another_process():
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        started = start_time(child.pid)
        assert started is not None and ended(child.pid, started - 1.0) and not ended(child.pid, started)
    finally:
        child.kill()
        child.wait()
