"""Where one rollout's time goes, per backend: the environment's creation, the run's set-up up
to the program's first instruction (split into the sandbox's own and the interpreter's start),
the program's imports, its 20 calls through the proxy and the replica, its exit and the
sandbox's teardown, the diff, the environment's deletion. Wall time of each (median over
rollouts run one after another, so that nothing else shares the machine), and the CPU each
process spent: detour's (this process), the sandbox's (its processes and the tools that set
it up, once they have exited: on the namespace backend the program's own CPU is not among them,
bwrap's PID namespace keeps it, so the program counts it itself; a program forked by the warm
interpreter is counted from its server's reaped forks, less its own count) and the stack's (proxy
and replicas).

The program stamps its own clock at its first instruction, after its imports and after its
calls; the host reads the time around each call it makes. `python -m bench.rollout_breakdown
[--out FILE]` runs it alone on a stack of its own, after the throughput rows of
bench/rollouts.py, and writes the tables as Markdown.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import resource
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import psutil

from bench.common import program_file
from bench.rollouts import bench_rollouts, networks_ahead, variants
from bench.sandboxes import docker_sandbox
from detour.client import Client
from detour.stack import Stack
from detour_core.paths import StatePaths
from sandbox import warm

ROLLOUTS = 20
TEMPLATE = "slack_bench_v2"
STAMPED = """import time
first = time.time_ns()
import requests
imported = time.time_ns()
with requests.Session() as slack:
    slack.headers["Authorization"] = "Bearer xoxb-bench"
    for i in range(20):
        assert slack.post("https://slack.com/api/chat.postMessage", data={"channel": "general", "text": str(i)}).json()["ok"]
print(first, imported, time.time_ns(), time.process_time_ns())
"""
PHASES = ("environment creation", "sandbox set-up (to exec)", "interpreter start", "imports (requests)",
          "20 calls through proxy + replica", "exit, teardown, audit read", "diff", "deletion")


class CpuClock:
    """CPU seconds spent so far by this process, its reaped children, and the stack's processes."""

    def __init__(self, stack_pids: list[int]) -> None:
        self.stack = [psutil.Process(pid) for pid in stack_pids]

    def read(self) -> tuple[float, float, float]:
        own = time.process_time()
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        stack = 0.0
        for proc in self.stack:
            for p in [proc, *proc.children(recursive=True)]:
                try:
                    times = p.cpu_times()
                    stack += times.user + times.system
                except psutil.Error:
                    continue
        return own, children.ru_utime + children.ru_stime + self.forked(), stack

    @staticmethod
    def forked() -> float:
        """The warm interpreter's forks (sandbox/warm.py), which its servers reap: the set-up of
        a forked program and the program itself, whose own count is then already in here."""
        spent = 0.0
        for pid in warm.server_pids():
            with contextlib.suppress(psutil.Error):
                times = psutil.Process(pid).cpu_times()
                spent += times.children_user + times.children_system
        return spent


def one_rollout(client: Client, program: Path, cpu: CpuClock, wall: dict, spent: dict) -> None:
    """Wall (ms) per phase into `wall`, CPU (ms: detour, sandbox, stack) per host-side step into `spent`."""
    envs = client.environments

    def step(name: str, call):
        c0, t0 = cpu.read(), time.time_ns()
        value = call()
        t1, c1 = time.time_ns(), cpu.read()
        spent[name].append(tuple((b - a) * 1000 for a, b in zip(c0, c1)))
        return value, t0, t1

    env, t0, t1 = step("environment creation", lambda: envs.create(TEMPLATE).env_id)
    wall["environment creation"].append((t1 - t0) / 1e6)
    forked = cpu.forked()
    result, t0, t1 = step("the run (set-up to teardown)", lambda: client.run(program, env=env))
    assert result.exit_code == 0, result.stderr
    first, imported, called, program_cpu = map(int, result.stdout.split())
    if cpu.forked() > forked:  # a warm run: its program's own count is not the set-up's
        own, sandbox, stack = spent["the run (set-up to teardown)"].pop()
        spent["the run (set-up to teardown)"].append((own, sandbox - program_cpu / 1e6, stack))
    spent["the agent program (its own count)"].append((0.0, program_cpu / 1e6, 0.0))
    wall["to the program's first instruction"].append((first - t0) / 1e6)
    wall["imports (requests)"].append((imported - first) / 1e6)
    wall["20 calls through proxy + replica"].append((called - imported) / 1e6)
    wall["after the calls, to the run's result"].append((t1 - called) / 1e6)
    diff, t0, t1 = step("diff", lambda: envs.diff(env))
    assert len(diff.inserts) == 20
    wall["diff"].append((t1 - t0) / 1e6)
    _, t0, t1 = step("deletion", lambda: envs.delete(env))
    wall["deletion"].append((t1 - t0) / 1e6)


def exec_start(client: Client) -> float:
    """The run's set-up to a binary's first instruction (no interpreter): `date` stamps it."""
    env = client.environments.create(TEMPLATE).env_id
    try:
        called = time.time_ns()
        result = client.run_command(["/bin/date", "+%s%N"], env=env)
        return (int(result.stdout) - called) / 1e6
    finally:
        client.environments.delete(env)


def breakdown(state: StatePaths, stack: Stack, backend: str, pool: int) -> tuple[dict[str, float], dict[str, tuple], float]:
    """Median wall per phase, median CPU per step, and the median rollout, on one backend
    (with `pool` namespace networks made ahead)."""
    program = program_file("stamped.py", STAMPED)
    os.environ.setdefault(warm.WARM_VARIABLE, "wait")  # as bench_rollouts
    cpu = CpuClock([p.pid for p in stack.processes.values()])
    wall: dict[str, list[float]] = defaultdict(list)
    spent: dict[str, list[tuple]] = defaultdict(list)
    with networks_ahead(pool), Client(home=state.home, stack=stack.info, backend=backend) as client:
        one_rollout(client, program, cpu, defaultdict(list), defaultdict(list))  # the runtime probed once
        totals, execs = [], []
        for _ in range(ROLLOUTS):  # a binary's start after each rollout, in the same state of any pool
            started = time.perf_counter()
            one_rollout(client, program, cpu, wall, spent)
            totals.append((time.perf_counter() - started) * 1000)
            execs.append(exec_start(client))
        if pool:
            client.sandbox().close()
    medians = {name: statistics.median(values) for name, values in wall.items()}
    to_first = medians.pop("to the program's first instruction")
    sandbox = min(statistics.median(execs), to_first)
    phases = {"environment creation": medians["environment creation"], "sandbox set-up (to exec)": sandbox,
              "interpreter start": to_first - sandbox, "imports (requests)": medians["imports (requests)"],
              "20 calls through proxy + replica": medians["20 calls through proxy + replica"],
              "exit, teardown, audit read": medians["after the calls, to the run's result"] - medians["diff"],
              "diff": medians["diff"], "deletion": medians["deletion"]}
    cpu_medians = {name: tuple(statistics.median(v[i] for v in values) for i in range(3))
                   for name, values in spent.items()}
    return phases, cpu_medians, statistics.median(totals)


def table(backend: str, phases: dict[str, float], cpu: dict[str, tuple], total: float) -> str:
    lines = [f"**{backend}**: one rollout median {total:.0f} ms (n={ROLLOUTS}, one at a time)", "",
             "| phase | wall, ms | share |", "|---|---:|---:|"]
    lines += [f"| {name} | {phases[name]:.1f} | {phases[name] / total:.0%} |" for name in PHASES]
    lines += ["", "| host step | CPU ms: detour | sandbox (and its set-up tools) | stack (proxy, replicas) |",
              "|---|---:|---:|---:|"]
    lines += [f"| {name} | {own:.1f} | {child:.1f} | {stack:.1f} |" for name, (own, child, stack) in cpu.items()]
    return "\n".join(lines) + "\n"


def backends(state: StatePaths) -> list[tuple[str, int]]:
    """(backend, namespace networks made ahead): process always; namespace where it can run, also with
    a pool; docker where an engine answers and the images are built (the sandbox's CPU is then the
    engine's, not counted here)."""
    found = variants()
    return found + ([("docker", 0)] if found[-1][0] == "namespace" and docker_sandbox(state) else [])


def bench_rollout_breakdown(state: StatePaths, stack: Stack) -> str:
    """Printed by `make bench`; returned as Markdown for docs/benchmarks/."""
    text = ""
    for backend, pool in backends(state):
        label = f"{backend} backend" + (f", {pool} networks made ahead (DETOUR_NAMESPACE_POOL)" if pool else "")
        part = table(label, *breakdown(state, stack, backend, pool))
        print("\n".join("  " + line for line in part.splitlines()))
        text += part + "\n"
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="Also write the tables here (Markdown).")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="detour-bench-") as tmp:
        state = StatePaths(Path(tmp)).ensure()
        stack = Stack(state)
        with stack as info:
            print("rollouts: environment, sandbox, a 20-call agent, the diff, deletion")
            with contextlib.redirect_stdout(io.StringIO()) as rows:
                bench_rollouts(state, info)
            print(rows.getvalue(), end="")
            print("where one rollout's time goes")
            text = bench_rollout_breakdown(state, stack)
    if args.out:
        heading = (f"# Where a rollout's time goes ({time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, "
                   f"`python -m bench.rollout_breakdown`)\n\n")
        throughput = f"The throughput rows of the same run (bench/rollouts.py):\n\n```\n{rows.getvalue()}```\n\n"
        args.out.write_text(heading + (__doc__ or "").split("\n\n")[0].replace("\n", " ") + "\n\n" + throughput + text)


if __name__ == "__main__":
    sys.exit(main())
