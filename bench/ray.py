"""Rollouts per second through Ray, with one, two and three nodes on this machine, beside the same
rollouts on one local stack: the acme suite (15 tests) played by its scripted agent, two at once
per node, on the namespace backend. The nodes share the same two cores, so the figure is Ray's
cost per rollout against a local run, not a speed-up; docs/scaling.md's sizing table reads it.

Each cluster is made as the tests make theirs (tests/ray_cluster.py: loopback, no usage stats)
and stopped after. The clock starts at the first outcome (every node's stack up) and stops at
the last, so stack starts are not counted; it is printed, never asserted."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

from detour.client import Client as LocalClient
from detour.stack import StackInfo
from detour_client import Client
from detour_core.paths import StatePaths
from tests.ray_cluster import BIN, cluster, held_out

ROOT = Path(__file__).parents[1]
SUITE = ROOT / "examples" / "suites" / "acme.json"
AGENT = ["python3", str(ROOT / "tests" / "agents" / "acme_suite.py")]
PER_NODE = 2


def seconds_per_rollout(outcomes: Iterator) -> tuple[float, int, int]:
    """Wall seconds per rollout from the first outcome to the last, how many, on how many nodes."""
    first = next(outcomes)
    started = time.perf_counter()
    rest = list(outcomes)
    elapsed = time.perf_counter() - started
    return elapsed / max(len(rest), 1), len(rest) + 1, len({getattr(o, "node", None) for o in [first, *rest]})


def bench_ray(state: StatePaths, info: StackInfo) -> None:
    if reason := held_out():
        print(f"  not run: {reason}")
        return
    with LocalClient(home=state.home, stack=info, backend="namespace") as local:
        base, count, _ = seconds_per_rollout(local.rollouts(SUITE, AGENT, n=1, workers=PER_NODE))
    print(f"  local stack, {PER_NODE} at once: {1 / base:.2f} rollouts/s ({base:.2f} s a rollout, {count} rollouts)")
    for nodes in (1, 2, 3):
        with cluster(nodes) as made:
            each, count, used = seconds_per_rollout(Client().rollouts(
                SUITE, AGENT, n=1, workers=PER_NODE, ray_address=made.address, stack_command=[str(BIN / "detour")],
                backend="namespace"))
        print(f"  ray, {nodes} node(s), {PER_NODE} at once each: {1 / each:.2f} rollouts/s ({each:.2f} s a rollout, "
              f"{count} rollouts on {used} node(s); {(each / base - 1) * 100:+.0f}% time a rollout against local)")
