"""Ray's cost per rollout on this machine: the acme suite (15 tests) played by its scripted agent on
the namespace backend, through Ray with one, two and three nodes (two rollouts at once a node),
each held against the same rollouts, as many at once, on one local stack run as a node runs its own
(`detour serve` on loopback, driven over HTTP). The nodes share the same two cores, so the figure is
Ray's cost per rollout, not a speed-up; docs/scaling.md's sizing table reads it.

Two sides a configuration, both up at once, each a driver process taking orders on its stdin: the
local stack's, and the Ray cluster's (tests/ray_cluster.py's, in a network namespace holding only
`lo`; its driver calls detour_client.ray's start_stacks and spread, as `rollouts(ray_address=)`
does). Their windows, each from the order to its last outcome, starts not counted:
- fresh: the suite three times (45 rollouts) on stacks that have run nothing, as a run that starts
  its stacks pays: each stack's first use (its packs' routes built on their first request, in the
  replica server and in the proxy's fast path; the warm interpreter's start, the first sandboxes);
- then each stack, the local one and each node's, plays the suite once on its own (not timed);
- steady: windows of the suite twice (30 rollouts) in the order local, Ray, Ray, local, four a side,
  so that others' load drifting meanwhile weighs on both sides alike.
The goal (at most 10% more time a rollout through Ray) is judged on the steady windows, what a
trainer's node is in for all but its first minute, so read on an idle machine: wall time on two
shared cores moves with others' load. CPU a rollout is printed beside it, and Ray's own processes'
share of it (actor, raylet, GCS, agents, `ray start`; each side has a driver of its own): with three
nodes on two cores, three stacks also make the same sandboxes' and app servers' work cost more CPU
than one stack does (contention, caches), which is not Ray's. With 15 rollouts a node on three
nodes, the fresh window is mostly two more stacks' first use, paid once a node.

CPU-seconds are exactly each side's processes': each side's driver starts in a cgroup v2 of its own
(cpu.stat's usage_usec, those that have ended included), and so does everything it starts, as do
the cluster's nodes with their workers: each stack with its proxy and its sandboxes, which stacks
move into cgroups of their own only in the v1 hierarchies (memory, pids, cpuacct); on a machine with
cgroup v2 alone they would leave it, and the bench says so. Others' work is not counted (the whole
machine's busy CPU, /proc/stat, is printed beside it: equal to it on an idle machine), nor is the
idle side's. Where a side's CPU went is printed too, by part: its long-lived processes by their
command line (PARTS), and what ended within the window (sandboxes, forks). Printed, never asserted."""

from __future__ import annotations

import contextlib
import hashlib
import json
import operator
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from functools import reduce
from itertools import chain
from pathlib import Path
from typing import NoReturn

import psutil

from detour_client import Outcome
from detour_client.ray import ServedStack
from detour_client.rollouts import plan, read_suite
from sandbox import cgroups
from tests.ray_cluster import Cluster, cluster

ROOT = Path(__file__).parents[1]
SUITE = ROOT / "examples" / "suites" / "acme.json"
AGENT = ["python3", str(ROOT / "tests" / "agents" / "acme_suite.py")]
DETOUR = [str(Path(sys.executable).parent / "detour")]
PER_NODE = 2
FRESH = 3  # the suite's 15 tests three times: the fresh window's 45 rollouts
STEADY = 2  # twice: 30 rollouts a steady window
ORDER = "LRRLLRRL"  # the steady windows, local and Ray
GOAL = 0.10  # at most 10% more a rollout through Ray
CODE = ("detour", "detour_core", "detour_client", "proxy_addons", "mock_services", "sandbox/*.py", "tests/agents")
# A side's processes by what their command line holds, for where its CPU went.
RAY_PARTS = ("Ray actor", "Ray agents", "Ray GCS", "raylet", "ray start")
PARTS = (("proxy_addons", "proxy"), ("uvicorn", "app server"), ("forkserver", "warm interpreter"),
         ("sandbox.dns", "dns"), ("detour serve", "detour serve"), ("drive(", "driver"), ("ray::", "Ray actor"),
         ("agent", "Ray agents"), ("gcs_server", "Ray GCS"), ("raylet", "raylet"), ("ray start", "ray start"))
DRIVER = f"import sys; sys.path.insert(0, {str(ROOT)!r}); from bench.ray import drive; drive(sys.argv[1])"


@dataclass
class Figures:
    wall_s: float  # the windows' wall seconds
    cpu_s: float  # the side's processes' CPU-seconds in them
    machine_cpu_s: float  # the whole machine's, others' work included
    done: list[Outcome]
    parts: Counter[str] = field(default_factory=Counter)  # CPU-seconds by part (PARTS)

    def __add__(self, other: Figures) -> Figures:
        return Figures(self.wall_s + other.wall_s, self.cpu_s + other.cpu_s, self.machine_cpu_s + other.machine_cpu_s,
                       self.done + other.done, self.parts + other.parts)

    def each(self, seconds: float) -> float:
        return seconds / len(self.done)

    def failed(self) -> str:
        """The tests of the rollouts that did not pass (a failed rollout is a cheaper one)."""
        names = sorted({o.id for o in self.done if not o.passed})
        return f"; not passed: {', '.join(names)}" if names else ""


def drive(where: str) -> None:
    """A side's driver: its stacks up ("ready"), then each order on stdin ({"n", "workers", "each"}:
    the suite n times, `workers` at once a stack, on each stack alone one after another or over
    all), its outcomes as JSON lines, then "done"."""
    data = read_suite(SUITE)
    with contextlib.ExitStack() as up:
        if where == "local":
            served = ServedStack(DETOUR, prefix="detour-bench-ray-")
            up.callback(served.stop)

            def run(n: int, workers: int, each: bool) -> Iterator[Outcome]:
                return served.stack.rollouts(data, AGENT, n=n, workers=workers, backend="namespace")
        else:
            import ray

            from detour_client.ray import spread, start_stacks, stop_stacks
            ray.init(address=where, log_to_driver=False)
            up.callback(ray.shutdown)
            actors = start_stacks(DETOUR, PER_NODE)
            up.callback(stop_stacks, actors)

            def run(n: int, workers: int, each: bool) -> Iterator[Outcome]:
                parts = [{node: actor} for node, actor in actors.items()] if each else [actors]
                return chain.from_iterable(spread(part, data, plan(data, n), AGENT, workers, {"backend": "namespace"})
                                           for part in parts)
        print("ready", flush=True)
        for order in sys.stdin:
            for outcome in run(**json.loads(order)):
                print(json.dumps(asdict(outcome)), flush=True)
            print("done", flush=True)


def machine_busy_s() -> float:
    """CPU-seconds every process on the machine has spent (/proc/stat: all but idle and iowait)."""
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, Path("/proc/stat").read_text().split()[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def v2_hierarchy() -> Path:
    """Where cgroup v2 is mounted: /sys/fs/cgroup/unified beside v1's controllers, or /sys/fs/cgroup alone."""
    return next(Path(words[1]) for words in map(str.split, Path("/proc/mounts").read_text().splitlines())
                if words[2] == "cgroup2")


class Side:
    """One side's cgroup v2 and its driver in it."""

    def __init__(self, name: str) -> None:
        mine = next(line[3:] for line in Path("/proc/self/cgroup").read_text().splitlines() if line.startswith("0::"))
        self.home = v2_hierarchy() / mine.lstrip("/")
        self.group = self.home / f"detour-bench-ray-{os.getpid()}-{name}"
        self.group.mkdir()
        self.driver: subprocess.Popen | None = None
        self.log = Path(os.devnull)  # what the driver says on stderr

    @contextlib.contextmanager
    def inside(self) -> Iterator[None]:
        """What this process starts meanwhile starts in the side's group."""
        (self.group / "cgroup.procs").write_text(str(os.getpid()))
        try:
            yield
        finally:
            (self.home / "cgroup.procs").write_text(str(os.getpid()))

    def cpu_s(self) -> float:
        return cgroups.counter(self.group / "cpu.stat", "usage_usec") / 1e6

    def start(self, argv: list[str], log: Path, env: dict[str, str] | None = None) -> None:
        self.log = log
        with self.inside(), log.open("ab") as said:
            self.driver = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=said,
                                           text=True)
        if self.driver.stdout.readline() != "ready\n":
            self.died()

    def died(self) -> NoReturn:
        raise AssertionError(f"the driver exited {self.driver.wait()}: {self.log.read_text(errors='replace')[-2000:]}")

    def parts(self) -> dict[int, tuple[str, float, float]]:
        """The group's processes now: pid -> part (PARTS), start time, CPU-seconds."""
        found = {}
        for pid in (self.group / "cgroup.procs").read_text().split():
            with contextlib.suppress(psutil.Error):
                process = psutil.Process(int(pid))
                words = " ".join(process.cmdline()[:3]) or process.name()  # not options naming other parts
                used = process.cpu_times()
                found[process.pid] = (next((part for word, part in PARTS if word in words), process.name()),
                                      process.create_time(), used.user + used.system)
        return found

    def window(self, n: int, workers: int, each: bool = False) -> Figures:
        """The suite n times, from the order to the last outcome."""
        before = self.parts()
        started, spent, busy = time.perf_counter(), self.cpu_s(), machine_busy_s()
        self.driver.stdin.write(json.dumps({"n": n, "workers": workers, "each": each}) + "\n")
        self.driver.stdin.flush()
        done = []
        for line in self.driver.stdout:
            if line == "done\n":
                break
            done.append(Outcome(**json.loads(line)))
        else:
            self.died()
        figures = Figures(time.perf_counter() - started, self.cpu_s() - spent, machine_busy_s() - busy, done)
        for pid, (part, made, used) in self.parts().items():
            was = before.get(pid)
            figures.parts[part] += used - (was[2] if was and was[1] == made else 0)
        figures.parts["ended meanwhile: sandboxes, forks"] = figures.cpu_s - sum(figures.parts.values())
        return figures

    def stop(self) -> None:
        if self.driver:
            self.driver.stdin.close()  # the driver stops its stacks and leaves
            self.driver.wait()

    def remove(self) -> None:
        with contextlib.suppress(OSError):  # a straggler still in it keeps it; its counter is harmless
            self.group.rmdir()


@contextlib.contextmanager
def sides(nodes: int) -> Iterator[tuple[Side, Side]]:
    """The local side and a cluster of `nodes` with its driver, both up; all stopped at the end."""
    local, ray_side = Side("local"), Side("ray")
    with contextlib.ExitStack() as up:
        up.callback(ray_side.remove)
        up.callback(local.remove)
        up.callback(local.stop)
        with ray_side.inside():
            made: Cluster = up.enter_context(cluster(nodes))
        up.callback(ray_side.stop)  # before the cluster goes: the driver stops the nodes' stacks
        ray_side.start([*made.enter, sys.executable, "-c", DRIVER, made.address], made.folder / "driver.log", made.env)
        local.start([sys.executable, "-c", DRIVER, "local"], made.folder / "local-driver.log")
        yield local, ray_side


def tree() -> str:
    """A digest of the code the stacks and agents run, as the work tree has it (a shared tree's
    other edits run too: code that changes within a configuration makes its comparison moot)."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "--cached", "--others", "--exclude-standard",
                             "--", *CODE], capture_output=True, text=True).stdout
    digest = hashlib.sha256()
    for name in sorted(set(listed.split())):
        with contextlib.suppress(OSError):  # removed meanwhile
            digest.update(name.encode() + (ROOT / name).read_bytes())
    return digest.hexdigest()[:8]


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def show(label: str, got: Figures, base: Figures | None = None) -> tuple[float, float]:
    """One side's line; its wall and CPU a rollout against `base`'s (0 without one)."""
    extra = ((got.each(got.wall_s) / base.each(base.wall_s) - 1, got.each(got.cpu_s) / base.each(base.cpu_s) - 1)
             if base else (0.0, 0.0))
    against = f" ({extra[1] * 100:+.1f}% CPU, {extra[0] * 100:+.1f}% wall against the local stack)" if base else ""
    print(f"    {label}: {got.each(got.cpu_s):.3f} CPU-s and {got.each(got.wall_s):.3f} s a rollout "
          f"({len(got.done) / got.wall_s:.2f} rollouts/s; machine {got.each(got.machine_cpu_s):.3f} CPU-s){against}; "
          f"{len(got.done)} rollouts on {len({o.node for o in got.done})} node(s){got.failed()}")
    if got.parts:
        print("      CPU-s a rollout by part: " + ", ".join(f"{part} {got.each(used):.3f}"
                                                          for part, used in got.parts.most_common() if used >= 0.0005))
    return extra


def configuration(nodes: int) -> tuple[tuple[float, float], tuple[float, float, float]]:
    """One configuration's fresh and steady figures, printed; Ray's extra (wall, CPU) in each, and in
    the steady windows also its own processes' CPU, against the local side's CPU a rollout."""
    at_once = PER_NODE * nodes  # the local stack as many at once: contention costs CPU too
    with sides(nodes) as (local, ray_side):
        print(f"  {nodes} node(s), {at_once} rollouts at once; load average {load()}; code {(code := tree())}")
        fresh = local.window(FRESH, at_once), ray_side.window(FRESH, PER_NODE)
        local.window(1, PER_NODE), ray_side.window(1, PER_NODE, each=True)  # the warm-up, a pass a stack
        steady: dict[str, list[Figures]] = {"L": [], "R": []}
        for side in ORDER:
            steady[side].append(local.window(STEADY, at_once) if side == "L" else ray_side.window(STEADY, PER_NODE))
    if tree() != code:
        print(f"    the code changed meanwhile ({tree()}): these figures compare different code")
    show("fresh stacks, local", fresh[0])
    first = show(f"fresh stacks, ray, {nodes} node(s)", fresh[1], fresh[0])
    print(f"    steady windows' CPU-s a rollout, in the order {ORDER}: "
          + "; ".join(f"{side} " + ", ".join(f"{w.each(w.cpu_s):.3f}" for w in got) for side, got in steady.items()))
    local_steady, ray_steady = (reduce(operator.add, steady[side]) for side in "LR")
    show("steady, local", local_steady)
    then = show(f"steady, ray, {nodes} node(s)", ray_steady, local_steady)
    own = sum(ray_steady.parts[part] for part in RAY_PARTS) / len(ray_steady.done) / local_steady.each(local_steady.cpu_s)
    print(f"    Ray's own processes, steady: {own * 100:+.1f}% of the local stack's CPU a rollout; "
          f"load average at the end {load()}")
    return first, (*then, own)


def bench_ray() -> None:
    if cgroups.available() == "cgroup v2":
        print("  cgroup v2 alone: the stacks move their proxies and sandboxes out of the sides' groups, "
              "so the CPU figures leave them out")
    fresh, steady = zip(*(configuration(nodes) for nodes in (1, 2, 3)), strict=True)
    (wall, cpu, own), (fresh_wall, fresh_cpu) = (tuple(map(max, zip(*extra, strict=True))) for extra in (steady, fresh))
    print(f"  goal, at most {GOAL * 100:.0f}% more time a rollout through Ray, steady (every stack past its first "
          f"use): {'met' if wall <= GOAL else 'NOT MET'} (worst {wall * 100:+.1f}%; CPU a rollout: worst "
          f"{cpu * 100:+.1f}%, Ray's own processes at most {own * 100:+.1f}%; with each stack's first use in the "
          f"window: {fresh_wall * 100:+.1f}% time, {fresh_cpu * 100:+.1f}% CPU)")


if __name__ == "__main__":
    bench_ray()
