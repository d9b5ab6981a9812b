"""Hundreds of rollouts live at once (#52 item 4), as an RL trainer keeps them while each waits
for its model: LIVE runs posted together to the run API, each its own environment and sandbox,
each making a call, idle, then a second call. Printed: how many were live at once, their total
memory while they were, and the p99 of the calls made while all were live (goals: at most
8 GiB, at most 50 ms).

Each program idles until a moment the bench names (`at`), makes its second call at a random
point of the window after it, and stays until the window ends. Each says when its first call
was answered and when its second began: only second calls begun after the last program's first
was answered count (a sandbox still starting competes with calls; on a busy machine the ramp
outlasts its allowance, and counting those calls measured the ramp, not live rollouts). The
bench also counts the programs from /proc halfway through the window, and prints the machine's
load beside each figure (others' work moves them), and what the machine's CPU went to in the
window, part by part (cpu_by_part): on a shared machine the p99 follows the others' share."""

from __future__ import annotations

import json
import os
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
import requests

from bench.common import MB
from bench.stats import percentile
from detour.stack import Stack, StackInfo
from detour_core.credentials import api_key
from detour_core.paths import StatePaths
from sandbox.cgroups import ROOT

LIVE = 256
START_S = 0.75  # the time one more sandbox adds to the ramp (set-up, interpreter, first call) on two busy cores
WINDOW_S = 20.0
GIB = 1024 * MB
PROGRAM = """
import json, random, time, urllib.request
def call():
    started = time.perf_counter()
    request = urllib.request.Request("https://slack.com/api/auth.test", data=b"", headers={"Authorization": "Bearer xoxb-1"})
    assert json.load(urllib.request.urlopen(request))["ok"]
    return (time.perf_counter() - started) * 1000
first = call()
live = time.time()
time.sleep(max(0.0, %(at)r - time.time()) + random.uniform(0, %(window)r))  # idle: waiting for its model
began = time.time()
second = call()
time.sleep(max(0.0, %(at)r + %(window)r - time.time()))
print(json.dumps({"live": live, "began": began, "second": second}))
"""


def sandboxes(marker: str) -> tuple[int, int]:
    """How many programs named `marker` run (bwrap's two processes name it too), and their
    sandboxes' memory: their cgroups' where they have one (with the tmpfs pages written), else
    the programs' RSS."""
    programs = [p for p in psutil.process_iter(["name", "cmdline"])
                if p.info["name"] not in ("bwrap", "nsenter") and any(marker in w for w in p.info["cmdline"] or ())]
    groups, rss = set(), 0
    for program in programs:
        group = _cgroup(program.pid)
        if group is not None:
            groups.add(group)
        else:
            rss += _rss(program)
    return len(programs), rss + sum(int((group / "memory.current").read_text()) for group in groups)


def _cgroup(pid: int) -> Path | None:
    """A process's cgroup (v2) folder, if it counts memory."""
    try:
        line = Path(f"/proc/{pid}/cgroup").read_text().splitlines()[0]
    except (OSError, IndexError):
        return None
    group = ROOT / line.split("::", 1)[-1].lstrip("/")
    return group if line.startswith("0::") and (group / "memory.current").exists() else None


def _rss(process: psutil.Process) -> int:
    try:
        return process.memory_info().rss
    except psutil.Error:
        return 0


def stack_rss(stack: Stack) -> int:
    """The stack's processes' resident memory (the run API's threads are in the replica server's)."""
    return sum(psutil.Process(process.pid).memory_info().rss for process in stack.processes.values())


def cpu_by_part(stack: Stack) -> Counter[str]:
    """CPU seconds used so far by each part of the machine: the stack's processes, what they
    started (the run API's sandboxes and their fork servers below the replica server; the proxy
    user's helpers below the proxy), this bench (its callers' threads), "machine" the whole
    machine's (from /proc/stat), the kernel's interrupt time apart, and (cpu_line) "others" what
    is in none of these (other work on the machine, the kernel's own threads). A process gone between two looks takes its CPU with it."""
    parents = {p.pid: p.info["ppid"] for p in psutil.process_iter(["ppid"])}
    roots = {process.pid: name.split("-")[0] for name, process in stack.processes.items()}
    roots[os.getpid()] = "bench client"
    parts: Counter[str] = Counter()
    for pid in parents:
        part, ancestor = None, pid
        while ancestor and part is None:
            part = roots.get(ancestor)
            if part == "replicas" and ancestor != pid:
                part = "sandboxes"
            ancestor = parents.get(ancestor, 0)
        try:
            times = psutil.Process(pid).cpu_times()
        except psutil.Error:
            continue
        parts[part or "others"] += times.user + times.system
    machine = psutil.cpu_times()
    parts["machine"] = machine.user + machine.nice + machine.system + machine.irq + machine.softirq
    parts["kernel (irq, softirq: loopback traffic too)"] = machine.irq + machine.softirq
    return parts


def cpu_line(before: Counter[str], after: Counter[str], seconds: float) -> str:
    """Each part's share of the window in cores (1.00: one core busy throughout)."""
    used = {part: (after[part] - before[part]) / seconds for part in after if part not in ("machine", "others")}
    ours = sum(used.values())
    used["others"] = (after["machine"] - before["machine"]) / seconds - ours
    named = {"replicas": "replica server (run API)", "proxy": "proxy", "dns": "dns", "sandboxes": "sandboxes",
             "bench client": "this bench"}
    return ", ".join(f"{named.get(part, part)} {cores:4.2f}" for part, cores in sorted(used.items(), key=lambda x: -x[1]))


def bench_live_rollouts(state: StatePaths, stack: Stack, info: StackInfo, live: int = LIVE) -> None:
    """`live` runs posted at once; all must be live before `at`, the window's start."""
    marker = f"live-{uuid.uuid4().hex[:8]}.py"
    at = time.time() + live * START_S
    code = PROGRAM % {"at": at, "window": WINDOW_S}
    key, stack_before = api_key(state), stack_rss(stack)

    def post(_: int) -> dict:
        return requests.post(f"{info.replica_url}/api/platform/run", headers={"X-API-Key": key}, timeout=900,
                             json={"code": code, "filename": marker, "limits": {"timeout_s": 600}}).json()

    with ThreadPoolExecutor(live) as callers:
        answers = callers.map(post, range(live))
        time.sleep(max(0.0, at + 1 - time.time()))
        cpu_before = cpu_by_part(stack)
        time.sleep(max(0.0, at + WINDOW_S / 2 - time.time()))
        counted, memory = sandboxes(marker)
        memory += stack_rss(stack) - stack_before
        time.sleep(max(0.0, at + WINDOW_S - 1 - time.time()))
        cpu = cpu_line(cpu_before, cpu_by_part(stack), WINDOW_S - 2)
        results = list(answers)
    report(live, at, counted, memory, results)
    print(f"  CPU in the window, in cores busy (two on this machine): {cpu}")


def _why(result: dict) -> str:
    """One line for a run that did not end well: its error, or its exit and stderr's last line."""
    if "exit_code" not in result:
        return str(result.get("detail") or result)[:200]
    tail = (result.get("stderr") or "").strip().splitlines()[-1:] or [""]
    return f"exit {result['exit_code']} ({result.get('killed_reason')}): {tail[0][:160]}"


def report(live: int, at: float, counted: int, memory: int, results: list[dict]) -> None:
    done = [json.loads(r["stdout"]) for r in results if r.get("exit_code") == 0]
    late = sum(d["live"] > at for d in done)
    all_live = max((d["live"] for d in done), default=at)
    calls = [d["second"] for d in done if d["began"] >= all_live] if len(done) == live else []
    p50, p99 = (percentile(calls, 50), percentile(calls, 99)) if calls else (float("nan"), float("nan"))
    failed = Counter(_why(r) for r in results if r.get("exit_code") != 0)
    if failed:
        print(f"  {sum(failed.values())} runs did not run whole: " + "; ".join(f"{n} x {why}" for why, n in failed.most_common(3)))
    print(f"  {live} rollouts posted at once: {len(done)} ran whole, {counted} counted live halfway through the "
          f"window, " + (f"{late} live only after it began (the last {all_live - at:.1f} s after: calls before "
                         f"not counted)" if late else "all live before it began"))
    print(f"  memory while live: {memory / GIB:5.2f} GiB ({memory / max(counted, 1) / MB:5.1f} MB a rollout; "
          f"goal at most 8 GiB: {'met' if memory <= 8 * GIB else 'NOT MET'})   "
          f"a call while all were live: p50 {p50:6.1f} ms, p90 {percentile(calls, 90) if calls else float('nan'):6.1f} ms, "
          f"p99 {p99:6.1f} ms, slowest {max(calls, default=float('nan')):6.1f} ms (n={len(calls)}; goal p99 at most 50 ms: "
          f"{'met' if p99 <= 50 else 'NOT MET'}; load {os.getloadavg()[0]:.1f})")
