"""The loop RL and regression users run, as one figure: an environment from a template, a
sandbox, a 20-call agent program, the diff, the environment's deletion; several workers at
once. Rollouts per second (and per core), p50 and p99 of one rollout, per backend."""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.sandboxes import calls_program
from bench.stats import percentile
from detour.client import Client
from detour.stack import StackInfo
from detour_core.paths import StatePaths
from sandbox.namespace import requirements_missing

WORKERS = 4
EACH = 5


def rollout(client: Client, program: Path, template: str) -> float:
    started = time.perf_counter()
    env = client.environments.create(template).env_id
    result = client.run(program, env=env)
    assert result.exit_code == 0, result.stderr
    assert len(client.environments.diff(env).inserts) == 20
    client.environments.delete(env)
    return (time.perf_counter() - started) * 1000


def bench_rollouts(state: StatePaths, info: StackInfo) -> None:
    with tempfile.TemporaryDirectory(prefix="detour-bench-rollout-") as folder:
        program = Path(folder, "agent.py")
        program.write_text(calls_program(20))
        backends = ["process"] + ([] if requirements_missing() else ["namespace"])
        for backend in backends:
            for template in ("slack_bench_v2",):
                with Client(home=state.home, stack=info, backend=backend) as client:
                    rollout(client, program, template)  # the backend's first sandbox probes the runtime
                    started = time.perf_counter()
                    with ThreadPoolExecutor(WORKERS) as pool:
                        times = list(pool.map(lambda _: rollout(client, program, template), range(WORKERS * EACH)))
                    elapsed = time.perf_counter() - started
                rate = len(times) / elapsed
                print(f"  {backend:<9} {template}: {rate:5.1f} rollouts/s ({rate / (os.cpu_count() or 1):4.1f} per core)"
                      f"   p50 {statistics.median(times):6.0f} ms   p99 {percentile(times, 99):6.0f} ms   "
                      f"({WORKERS} workers, n={len(times)}; goal: 10/s on namespace)")
