"""Rollouts per second through Ray, with one, two and three nodes on this machine, beside the same
rollouts on one local stack: the acme suite (15 tests) played by its scripted agent, two at once
per node, on the namespace backend; then 100 rollouts over the three nodes (the suite's first ten
tests, ten times each). The nodes share the same two cores, so the figure is Ray's cost per
rollout against a local run, not a speed-up; docs/scaling.md's sizing table reads it.

Each cluster is made as the tests make theirs (tests/ray_cluster.py: nodes and driver in a network
namespace of their own that holds only `lo`, no usage stats) and removed after. The clock starts at
the first outcome (every node's stack up) and stops at the last, so stack starts are not counted;
it is printed, never asserted."""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from detour.client import Client as LocalClient
from detour.stack import StackInfo
from detour_core.paths import StatePaths
from tests.ray_cluster import cluster

ROOT = Path(__file__).parents[1]
SUITE = ROOT / "examples" / "suites" / "acme.json"
AGENT = ["python3", str(ROOT / "tests" / "agents" / "acme_suite.py")]
PER_NODE = 2
HUNDRED = (10, 10)  # tests, times each


def seconds_per_rollout(outcomes: Iterator) -> tuple[float, int, int, float]:
    """Wall seconds per rollout from the first outcome to the last, how many, on how many nodes, mean score."""
    first = next(outcomes)
    started = time.perf_counter()
    rest = list(outcomes)
    elapsed = time.perf_counter() - started
    done = [first, *rest]
    return (elapsed / max(len(rest), 1), len(done), len({getattr(o, "node", None) for o in done}),
            sum(o.score for o in done) / len(done))


def bench_ray(state: StatePaths, info: StackInfo) -> None:
    with LocalClient(home=state.home, stack=info, backend="namespace") as local:
        base, count, _, _ = seconds_per_rollout(local.rollouts(SUITE, AGENT, n=1, workers=PER_NODE))
    print(f"  local stack, {PER_NODE} at once: {1 / base:.2f} rollouts/s ({base:.2f} s a rollout, {count} rollouts)")
    for nodes in (1, 2, 3):
        with cluster(nodes) as made:
            each, count, used, _ = seconds_per_rollout(made.rollouts(SUITE, AGENT, n=1, workers=PER_NODE,
                                                                     backend="namespace"))
        print(f"  ray, {nodes} node(s), {PER_NODE} at once each: {1 / each:.2f} rollouts/s ({each:.2f} s a rollout, "
              f"{count} rollouts on {used} node(s); {(each / base - 1) * 100:+.0f}% time a rollout against local)")
    tests, times = HUNDRED
    suite = json.loads(SUITE.read_text())
    suite["tests"] = suite["tests"][:tests]
    with tempfile.TemporaryDirectory() as folder, cluster(3) as made:
        (Path(folder) / "suite.json").write_text(json.dumps(suite))
        each, count, used, score = seconds_per_rollout(made.rollouts(Path(folder) / "suite.json", AGENT, n=times,
                                                                     workers=PER_NODE, backend="namespace"))
    print(f"  ray, 3 nodes, {count} rollouts ({tests} tests x {times}): {1 / each:.2f} rollouts/s ({each:.2f} s a "
          f"rollout, on {used} node(s), mean score {score:.3f}; {(each / base - 1) * 100:+.0f}% against local)")
