"""Ray's cost per rollout on this machine: the acme suite (15 tests, three times each) played by its
scripted agent, two at once per node, on the namespace backend, through Ray with one, two and three
nodes, each held against the same rollouts, as many at once, on one local stack run as a node runs
its own (`detour serve` on loopback, driven over HTTP) just before and just after it. The nodes share the same two cores, so the figure is Ray's cost per
rollout, not a speed-up; docs/scaling.md's sizing table reads it.

Two figures a rollout: wall seconds, and CPU-seconds of what the run starts and keeps in a cpuacct
cgroup this process enters for the run: the driver, Ray's daemons and workers, and each stack's
`detour serve`, app server and DNS. Not counted, on either side: the proxy and the sandboxes (their
agents), which each stack moves into cgroups of their own; so its percentages are of a rollout's
CPU without its agent's and its proxy's, larger than against the whole rollout. Beside it, the
whole machine's busy CPU-seconds (/proc/stat), which count the whole rollout and anything else
that runs: the goal (at most 10% more a rollout through Ray) is judged on it, on an otherwise idle
machine; on a machine others load, the metered figure is the steadier one. Each cluster is made as the tests make theirs (tests/ray_cluster.py: nodes and driver
in a network namespace holding only `lo`). Both clocks start at the first outcome (every stack up)
and stop at the last, so starts are not counted; printed, never asserted."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from detour_client.ray import ServedStack
from tests.ray_cluster import cluster

ROOT = Path(__file__).parents[1]
SUITE = ROOT / "examples" / "suites" / "acme.json"
AGENT = ["python3", str(ROOT / "tests" / "agents" / "acme_suite.py")]
PER_NODE = 2
TIMES = 3  # each of the suite's 15 tests: 45 rollouts a configuration
GOAL = 0.10  # at most 10% more a rollout through Ray
CPUACCT = Path("/sys/fs/cgroup/cpuacct")


@dataclass
class Figures:
    wall_s: float  # a rollout, from the first outcome to the last
    cpu_s: float
    machine_cpu_s: float  # the whole machine's: with the agents and proxies, so the whole rollout
    count: int
    nodes: int
    score: float  # mean: the scripted agent passes every test, 1.0


def machine_busy_s() -> float:
    """CPU-seconds every process on the machine has spent (/proc/stat: all but idle and iowait)."""
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, Path("/proc/stat").read_text().split()[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def metered() -> Iterator[Callable[[], float]]:
    """This process, and every process it starts from now on, in a cpuacct cgroup of its own;
    yields a reader of the CPU-seconds they have spent. Back in its own cgroup at the end."""
    mine = next(line.split(":")[2] for line in Path("/proc/self/cgroup").read_text().splitlines()
                if "cpuacct" in line.split(":")[1].split(","))
    home, group = CPUACCT / mine.lstrip("/"), CPUACCT / mine.lstrip("/") / f"detour-bench-ray-{os.getpid()}"
    group.mkdir()
    (group / "cgroup.procs").write_text(str(os.getpid()))
    try:
        yield lambda: int((group / "cpuacct.usage").read_text()) / 1e9
    finally:
        (home / "cgroup.procs").write_text(str(os.getpid()))
        with contextlib.suppress(OSError):  # a straggler still in it keeps it; its counter is harmless
            group.rmdir()


def per_rollout(outcomes: Iterator, cpu: Callable[[], float]) -> Figures:
    """Wall and CPU seconds a rollout from the first outcome to the last, how many, on how many nodes."""
    first = next(outcomes)
    started, spent, busy = time.perf_counter(), cpu(), machine_busy_s()
    rest = list(outcomes)
    elapsed, spent, busy = time.perf_counter() - started, cpu() - spent, machine_busy_s() - busy
    done = [first, *rest]
    each = max(len(rest), 1)
    return Figures(elapsed / each, spent / each, busy / each, len(done), len({getattr(o, "node", None) for o in done}),
                   sum(o.score for o in done) / len(done))


def local(workers: int) -> Figures:
    with metered() as cpu:
        stack = ServedStack([str(Path(sys.executable).parent / "detour")], prefix="detour-bench-ray-")
        try:
            return per_rollout(stack.stack.rollouts(SUITE, AGENT, n=TIMES, workers=workers, backend="namespace"), cpu)
        finally:
            stack.stop()


def through_ray(nodes: int) -> Figures:
    with metered() as cpu, cluster(nodes) as made:
        return per_rollout(made.rollouts(SUITE, AGENT, n=TIMES, workers=PER_NODE, backend="namespace"), cpu)


def around(before: Figures, after: Figures) -> Figures:
    """The local figure a Ray run is held against: the mean of the local runs just before and after
    it, so that the load others put on the machine meanwhile weighs on both sides alike."""
    return Figures((before.wall_s + after.wall_s) / 2, (before.cpu_s + after.cpu_s) / 2,
                   (before.machine_cpu_s + after.machine_cpu_s) / 2, before.count + after.count, 1,
                   (before.score + after.score) / 2)


def show(label: str, got: Figures, base: Figures | None = None) -> tuple[float, float]:
    """One configuration's line; the CPU a rollout against `base`, metered and machine-wide (0 without one)."""
    extra = (got.cpu_s / base.cpu_s - 1, got.machine_cpu_s / base.machine_cpu_s - 1) if base else (0.0, 0.0)
    against = (f" ({(got.wall_s / base.wall_s - 1) * 100:+.0f}% wall, {extra[0] * 100:+.1f}% metered CPU, "
               f"{extra[1] * 100:+.1f}% machine CPU against the local runs around it)") if base else ""
    print(f"  {label}: {1 / got.wall_s:.2f} rollouts/s, {got.wall_s:.2f} s, {got.cpu_s:.3f} metered and "
          f"{got.machine_cpu_s:.3f} machine CPU-s a rollout{against}; {got.count} rollouts on {got.nodes} node(s), "
          f"mean score {got.score:.3f}")
    return extra


def bench_ray() -> None:
    print(f"  load average at the start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    worst = [0.0, 0.0]
    for nodes in (1, 2, 3):
        at_once = PER_NODE * nodes  # the local runs as many at once: contention costs CPU too
        before = local(at_once)
        show(f"local stack, {at_once} at once", before)
        got = through_ray(nodes)
        after = local(at_once)
        extra = show(f"ray, {nodes} node(s), {PER_NODE} at once each", got, around(before, after))
        worst = [max(w, e) for w, e in zip(worst, extra, strict=True)]
        show(f"local stack, {at_once} at once", after)
    print(f"  goal, at most {GOAL * 100:.0f}% more CPU a rollout through Ray, machine-wide (the whole rollout; "
          f"valid on an otherwise idle machine): {'met' if worst[1] <= GOAL else 'NOT MET'} "
          f"(worst {worst[1] * 100:+.1f}%; metered, without agents and proxies, {worst[0] * 100:+.1f}%); "
          f"load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    bench_ray()
