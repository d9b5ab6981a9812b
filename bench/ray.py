"""Ray's cost per rollout on this machine: the acme suite (15 tests, three times each) played by its
scripted agent, two at once per node, on the namespace backend, through Ray with one, two and three
nodes, each held against the same rollouts, as many at once, on one local stack run as a node runs
its own (`detour serve` on loopback, driven over HTTP) just before and just after it. The nodes
share the same two cores, so the figure is Ray's cost per rollout, not a speed-up; docs/scaling.md's
sizing table reads it.

Each run, local or through Ray, has two timed windows of the same 45 rollouts on the same stacks:
the first on fresh stacks (as a run that starts its stacks pays: each stack's first use, its packs'
routes built on their first request, the warm interpreter's first forks, its first sandboxes), then,
after every stack has played the whole suite once more on its own (not timed: the warm-up, the same
for the local stack and each node's), the steady window. Both are printed; the goal (at most 10%
more time a rollout through Ray) is judged on the steady one, which is what a trainer's node is in
for all but its first minute, and on CPU time (wall time on two shared cores moves with others'
load more than with Ray's cost; it is printed beside). With 15 rollouts a node on three nodes, the
first window is mostly two more stacks' first use, which a trainer pays once a node.

Time a rollout is wall seconds and CPU-seconds of exactly the run's processes: this process enters
a cgroup of its own in the cgroup v2 hierarchy (cpu.stat's usage_usec), and so does everything it
starts: the driver, Ray's daemons and workers, each stack with its proxy and its sandboxes. Stacks
move their proxies and sandboxes into cgroups of their own in the v1 hierarchies (memory, pids,
cpuacct), which leave their v2 membership as it was; on a machine with cgroup v2 alone they would
leave the group, and the bench says so. Others' work on the machine is not counted (the whole
machine's busy CPU, /proc/stat, is printed beside it: equal to it on an idle machine). Each cluster
is made as the tests make theirs (tests/ray_cluster.py: nodes and driver in a network namespace
holding only `lo`). Both clocks of a window start at its first outcome and stop at its last, so
starts are not counted; printed, never asserted."""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import chain, islice
from pathlib import Path

from detour_client import Outcome
from detour_client.ray import ServedStack
from detour_client.rollouts import plan, read_suite
from sandbox import cgroups
from tests.ray_cluster import cluster

ROOT = Path(__file__).parents[1]
SUITE = ROOT / "examples" / "suites" / "acme.json"
AGENT = ["python3", str(ROOT / "tests" / "agents" / "acme_suite.py")]
PER_NODE = 2
TIMES = 3  # each of the suite's 15 tests: 45 rollouts a window
GOAL = 0.10  # at most 10% more a rollout through Ray
CODE = ("detour", "detour_core", "detour_client", "proxy_addons", "mock_services", "sandbox/*.py", "tests/agents")
# The Ray side's driver (in the cluster's namespace): bench.ray.phased, each outcome a JSON line.
DRIVER = f"""
import dataclasses, json, sys
sys.path.insert(0, {str(ROOT)!r})
from bench.ray import phased
for outcome in phased(**json.loads(sys.argv[1])):
    print(json.dumps(dataclasses.asdict(outcome)), flush=True)
"""


@dataclass
class Figures:
    wall_s: float  # a rollout, from the window's first outcome to its last
    cpu_s: float  # the run's processes' (the cgroup's)
    machine_cpu_s: float  # the whole machine's, others' work included
    count: int
    nodes: int
    score: float  # mean: the scripted agent passes every test, 1.0
    failed: tuple[str, ...] = ()  # the tests of those that did not pass: a failed rollout is a cheaper one


def machine_busy_s() -> float:
    """CPU-seconds every process on the machine has spent (/proc/stat: all but idle and iowait)."""
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, Path("/proc/stat").read_text().split()[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def v2_hierarchy() -> Path:
    """Where cgroup v2 is mounted: /sys/fs/cgroup/unified beside v1's controllers, or /sys/fs/cgroup alone."""
    return next(Path(words[1]) for words in map(str.split, Path("/proc/mounts").read_text().splitlines())
                if words[2] == "cgroup2")


@contextlib.contextmanager
def counted() -> Iterator[Callable[[], float]]:
    """This process, and every process it starts from now on, in a cgroup v2 of its own; yields a
    reader of the CPU-seconds they have spent, those that have ended included. Back at the end."""
    mine = next(line[3:] for line in Path("/proc/self/cgroup").read_text().splitlines() if line.startswith("0::"))
    home = v2_hierarchy() / mine.lstrip("/")
    group = home / f"detour-bench-ray-{os.getpid()}"
    group.mkdir()
    (group / "cgroup.procs").write_text(str(os.getpid()))
    try:
        yield lambda: cgroups.counter(group / "cpu.stat", "usage_usec") / 1e6
    finally:
        (home / "cgroup.procs").write_text(str(os.getpid()))
        with contextlib.suppress(OSError):  # a straggler still in it keeps it; its counter is harmless
            group.rmdir()


def per_rollout(outcomes: Iterator[Outcome], cpu: Callable[[], float]) -> Figures:
    """Wall and CPU seconds a rollout from the first outcome to the last, how many, on how many nodes."""
    first = next(outcomes)
    started, spent, busy = time.perf_counter(), cpu(), machine_busy_s()
    rest = list(outcomes)
    elapsed, spent, busy = time.perf_counter() - started, cpu() - spent, machine_busy_s() - busy
    done = [first, *rest]
    each = max(len(rest), 1)
    return Figures(elapsed / each, spent / each, busy / each, len(done), len({o.node for o in done}),
                   sum(o.score for o in done) / len(done), tuple(sorted({o.id for o in done if not o.passed})))


def windows(outcomes: Iterator[Outcome], stacks: int, cpu: Callable[[], float]) -> tuple[Figures, Figures]:
    """The fresh window and the steady one of a run's outcomes, the warm-up between them skipped:
    the suite's tests TIMES times, once on each of `stacks` stacks, TIMES times again."""
    window = len(plan(read_suite(SUITE), TIMES))
    fresh = per_rollout(islice(outcomes, window), cpu)
    for _ in islice(outcomes, window // TIMES * stacks):
        pass
    steady = per_rollout(islice(outcomes, window), cpu)
    assert next(outcomes, None) is None, "more outcomes than the windows and the warm-up"
    return fresh, steady


def phased(suite: str, agent: list[str], ray_address: str, stack_command: list[str], n: int, workers: int,
           **options: object) -> Iterator[Outcome]:
    """In the driver: the suite `n` times over fresh stacks, one node's; then the suite once on each
    node's stack alone (its warm-up); then `n` times again over all of them."""
    import ray

    from detour_client.ray import spread, start_stacks, stop_stacks
    data = read_suite(suite)
    ray.init(address=ray_address, log_to_driver=False)
    actors = start_stacks(stack_command, workers)
    try:
        yield from spread(actors, data, plan(data, n), agent, workers, options)
        for node, actor in actors.items():
            yield from spread({node: actor}, data, plan(data), agent, workers, options)
        yield from spread(actors, data, plan(data, n), agent, workers, options)
    finally:
        stop_stacks(actors)
        ray.shutdown()


def local(workers: int) -> tuple[Figures, Figures]:
    """The same windows on one local stack, `workers` at once (its warm-up, as a node's, PER_NODE at once)."""
    with counted() as cpu:
        served = ServedStack([str(Path(sys.executable).parent / "detour")], prefix="detour-bench-ray-")
        play = {"agent": AGENT, "backend": "namespace"}
        try:
            return windows(chain(served.stack.rollouts(SUITE, n=TIMES, workers=workers, **play),
                                 served.stack.rollouts(SUITE, n=1, workers=PER_NODE, **play),
                                 served.stack.rollouts(SUITE, n=TIMES, workers=workers, **play)), 1, cpu)
        finally:
            served.stop()


def through_ray(nodes: int) -> tuple[Figures, Figures]:
    with counted() as cpu, cluster(nodes) as made:
        return windows(made.rollouts(SUITE, AGENT, program=DRIVER, n=TIMES, workers=PER_NODE, backend="namespace"),
                       nodes, cpu)


def around(before: Figures, after: Figures) -> Figures:
    """The local figure a Ray run is held against: the mean of the local runs just before and after
    it, so that the load others put on the machine meanwhile weighs on both sides alike."""
    return Figures((before.wall_s + after.wall_s) / 2, (before.cpu_s + after.cpu_s) / 2,
                   (before.machine_cpu_s + after.machine_cpu_s) / 2, before.count + after.count, 1,
                   (before.score + after.score) / 2, before.failed + after.failed)


def show(label: str, got: Figures, base: Figures | None = None) -> tuple[float, float]:
    """One window's line; the wall and CPU a rollout against `base` (0 without one)."""
    extra = (got.wall_s / base.wall_s - 1, got.cpu_s / base.cpu_s - 1) if base else (0.0, 0.0)
    against = (f" ({extra[0] * 100:+.1f}% wall, {extra[1] * 100:+.1f}% CPU, machine CPU "
               f"{(got.machine_cpu_s / base.machine_cpu_s - 1) * 100:+.1f}%, against the local runs around it)"
               if base else "")
    print(f"    {label}: {1 / got.wall_s:.2f} rollouts/s, {got.wall_s:.3f} s and {got.cpu_s:.3f} CPU-s a rollout "
          f"(machine {got.machine_cpu_s:.3f}){against}; {got.count} rollouts on {got.nodes} node(s), "
          f"mean score {got.score:.3f}{'; not passed: ' + ', '.join(got.failed) if got.failed else ''}")
    return extra


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


def bench_ray() -> None:
    if cgroups.available() == "cgroup v2":
        print("  cgroup v2 alone: the stacks move their proxies and sandboxes out of the bench's group, "
              "so its CPU figures leave them out")
    worst = {"fresh": [0.0, 0.0], "steady": [0.0, 0.0]}
    for nodes in (1, 2, 3):
        at_once = PER_NODE * nodes  # the local runs as many at once: contention costs CPU too
        print(f"  {nodes} node(s), {at_once} rollouts at once; load average {load()}; code {(code := tree())}")
        before = local(at_once)
        got = through_ray(nodes)
        after = local(at_once)
        if tree() != code:
            print(f"    the code changed during this configuration ({tree()}): its figures compare different code")
        for name, i in (("fresh", 0), ("steady", 1)):
            show(f"{name}, local stack before", before[i])
            extra = show(f"{name}, ray, {nodes} node(s)", got[i], around(before[i], after[i]))
            worst[name] = [max(w, e) for w, e in zip(worst[name], extra, strict=True)]
            show(f"{name}, local stack after", after[i])
    (wall, cpu), (fresh_wall, fresh_cpu) = worst["steady"], worst["fresh"]
    print(f"  goal, at most {GOAL * 100:.0f}% more CPU time a rollout through Ray, steady (every stack past its "
          f"first use): {'met' if cpu <= GOAL else 'NOT MET'} (worst {cpu * 100:+.1f}%, wall {wall * 100:+.1f}%; "
          f"with each stack's first use in the window: {fresh_cpu * 100:+.1f}%, wall {fresh_wall * 100:+.1f}%); "
          f"load average at the end: {load()}")


if __name__ == "__main__":
    bench_ray()
