"""The stack start row of `make bench`: CPU-seconds and wall from nothing to a first answer.

Every `detour serve`, embedded stack, proxy worker with the replicas in process and Ray node
pays it, and the test suite starts ~150 stacks. CPU is counted over the stack's processes
(their rusage once they are reaped), robust to a busy machine where wall is not; the first answer
includes building the one pack it calls (packs are built on their first request: mock_services/app.py).
Beside it, a `detour` command's own start (the CLI's imports and its command tree), which every
command pays before it does anything and the tests pay some hundreds of times.
`python -m bench.stack_start` runs it alone.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psutil

from bench.common import AUTH
from certs.authority import CertificateAuthority
from detour.stack import EMBEDDED, PARTS, Stack
from detour_core.credentials import secret_for
from detour_core.paths import StatePaths
from mock_services.store import EnvironmentStore

FIRST = "https://slack.com/api/auth.test"
ANSWER_TIMEOUT_S = 60.0  # the first answer waits for the replicas to load on a busy machine
DETOUR = str(Path(sys.executable).parent / "detour")
# Commands that start nothing: what is left of their CPU is the CLI's start (tests/unit/test_cli_imports.py
# holds what they import).
CLI_COMMANDS = (("--help",), ("stack", "status"), ("env", "list"))


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def part_cpu(stack: Stack) -> dict[str, float]:
    """CPU-seconds each of the stack's processes has used so far (with its own children)."""
    def used(pid: int) -> float:
        tree = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
        return sum(t.user + t.system for t in (p.cpu_times() for p in tree))
    return {name: used(proc.pid) for name, proc in stack.processes.items()}


def one_start(state: StatePaths, env_id: str, in_process: bool) -> tuple[float, float, float, dict[str, float]]:
    """(CPU-seconds of the stack's processes, ms to ready, ms to the first routed answer, CPU by part)."""
    cpu, start = children_cpu(), time.perf_counter()
    stack = Stack(state, parts=EMBEDDED if in_process else PARTS)
    with stack as info:
        ready = time.perf_counter()
        proxy = info.access(env_id, secret_for(state, env_id)).url()
        with httpx.Client(proxy=proxy, verify=str(CertificateAuthority(state).ensure().bundle),
                          timeout=ANSWER_TIMEOUT_S) as client:
            assert client.post(FIRST, headers=AUTH).json()["ok"]
        answered = time.perf_counter()
        parts = part_cpu(stack)
    return children_cpu() - cpu, (ready - start) * 1000, (answered - start) * 1000, parts


def bench_cli_start(state: StatePaths, runs: int = 5) -> None:
    """CPU-seconds and wall of `detour` commands that start no stack (median of `runs`)."""
    env = os.environ | {"DETOUR_HOME": str(state.home), "DETOUR_BACKGROUND": "off"}
    for args in CLI_COMMANDS:
        rows = []
        for _ in range(runs):
            cpu, start = children_cpu(), time.perf_counter()
            subprocess.run([DETOUR, *args], env=env, check=True, capture_output=True)
            rows.append((children_cpu() - cpu, time.perf_counter() - start))
        cpu, wall = (statistics.median(row[i] for row in rows) for i in range(2))
        print(f"  CLI start, detour {' '.join(args):<13} CPU {cpu:5.2f} s   wall {wall * 1000:5.0f} ms   "
              f"(median of {runs}, load {os.getloadavg()[0]:.1f})")


def bench_stack_start(state: StatePaths, runs: int = 5) -> None:
    env_id = EnvironmentStore(state).create("slack_default").env_id
    for label, in_process in (("replicas over HTTP", False), ("replicas in process", True)):
        rows = [one_start(state, env_id, in_process) for _ in range(runs)]
        cpu, ready, answered = (statistics.median(row[i] for row in rows) for i in range(3))
        parts = ", ".join(f"{name} {statistics.median(row[3][name] for row in rows):.2f}" for name in rows[0][3])
        print(f"  stack start, {label:<19} CPU {cpu:5.2f} s ({parts})   ready {ready:5.0f} ms   "
              f"first answer {answered:5.0f} ms   (median of {runs}, load {os.getloadavg()[0]:.1f})")
    bench_cli_start(state, runs)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="detour-bench-") as tmp:
        bench_stack_start(StatePaths(Path(tmp)).ensure())
