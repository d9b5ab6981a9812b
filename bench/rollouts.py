"""The loop RL and regression users run, as one figure: an environment from a template, a
sandbox, a 20-call agent program, the diff, the environment's deletion; several workers at
once. Rollouts per second (and per core), p50 and p99 of one rollout, per backend; and the same
loop through AgentDiff's own SDK (`init_env`, `start_run`, `PythonExecutorProxy`, `diff_run`,
`delete_env`) against detour's AgentDiff API, in the same run."""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.sandboxes import calls_program, run_agentdiff
from bench.stats import percentile
from detour.client import Client
from detour.stack import StackInfo
from detour_core.credentials import api_key
from detour_core.paths import StatePaths
from sandbox.namespace import requirements_missing
from sandbox.netns_pool import POOL_VARIABLE
from sandbox.warm import WARM_VARIABLE

WORKERS = 4
EACH = 5
SDK_ROLLOUTS = """
import json, sys, time
from concurrent.futures import ThreadPoolExecutor
from agent_diff import AgentDiff, PythonExecutorProxy

url, workers, each, code = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
client = AgentDiff(base_url=url)

def rollout(_):
    started = time.perf_counter()
    env = client.init_env(templateService="slack", templateName="slack_bench_v2")
    run = client.start_run(envId=env.environmentId)
    done = PythonExecutorProxy(env.environmentId, base_url=url).execute(code)
    assert done["status"] == "success", done
    assert len(client.diff_run(runId=run.runId).diff["inserts"]) == 20
    client.delete_env(env.environmentId)
    return (time.perf_counter() - started) * 1000

rollout(0)
started = time.perf_counter()
with ThreadPoolExecutor(workers) as pool:
    times = list(pool.map(rollout, range(workers * each)))
print(json.dumps({"elapsed": time.perf_counter() - started, "times": times}))
"""


def rollout(client: Client, program: Path, template: str) -> float:
    started = time.perf_counter()
    env = client.environments.create(template).env_id
    result = client.run(program, env=env)
    assert result.exit_code == 0, result.stderr
    assert len(result.diff.inserts) == 20  # the run's own diff: reading it again would cost a second
    client.environments.delete(env)
    return (time.perf_counter() - started) * 1000


def report(label: str, elapsed: float, times: list[float]) -> tuple[float, float]:
    """Printed; returned: rollouts a second, and p99 over p50."""
    rate = len(times) / elapsed
    print(f"  {label:<38} {rate:5.1f} rollouts/s ({rate / (os.cpu_count() or 1):4.1f} per core)"
          f"   p50 {statistics.median(times):6.0f} ms   p99 {percentile(times, 99):6.0f} ms   "
          f"({WORKERS} workers, n={len(times)}; goal: 10/s on namespace)")
    return rate, percentile(times, 99) / statistics.median(times)


def bench_sdk_rollouts(state: StatePaths, info: StackInfo, program: Path) -> float | None:
    """AgentDiff's loop with its own executor (a bare subprocess that rewrites URLs, no isolation)."""
    done = run_agentdiff(["-c", SDK_ROLLOUTS, info.replica_url, str(WORKERS), str(EACH), program.read_text()],
                         {"AGENT_DIFF_API_KEY": api_key(state)})
    if done.returncode:
        print(f"  AgentDiff SDK rollouts failed: {done.stderr.strip().splitlines()[-1:]}")
        return None
    found = json.loads(done.stdout)
    return report("AgentDiff SDK, PythonExecutorProxy:", found["elapsed"], found["times"])[0]


@contextlib.contextmanager
def networks_ahead(pool: int) -> Iterator[None]:
    """DETOUR_NAMESPACE_POOL for the sandboxes made meanwhile, as a user sets it."""
    before = os.environ.get(POOL_VARIABLE)
    os.environ[POOL_VARIABLE] = str(pool)
    try:
        yield
    finally:
        if before is None:
            del os.environ[POOL_VARIABLE]
        else:
            os.environ[POOL_VARIABLE] = before


def variants() -> list[tuple[str, int]]:
    """(backend, networks made ahead): the namespace backend also with a pool (DETOUR_NAMESPACE_POOL)."""
    return [("process", 0)] + ([] if requirements_missing() else [("namespace", 0), ("namespace", 2 * WORKERS)])


def bench_rollouts(state: StatePaths, info: StackInfo) -> None:
    os.environ.setdefault(WARM_VARIABLE, "wait")  # Python programs forked once the server is warm (sandbox/warm.py)
    with tempfile.TemporaryDirectory(prefix="detour-bench-rollout-") as folder:
        program = Path(folder, "agent.py")
        program.write_text(calls_program(20))
        template = "slack_bench_v2"
        figures: dict[tuple[str, int], tuple[float, float]] = {}
        for backend, pool in variants():
            with networks_ahead(pool), Client(home=state.home, stack=info, backend=backend) as client:
                rollout(client, program, template)  # the backend's first sandbox probes the runtime
                started = time.perf_counter()
                with ThreadPoolExecutor(WORKERS) as workers:
                    times = list(workers.map(lambda _: rollout(client, program, template), range(WORKERS * EACH)))
                elapsed = time.perf_counter() - started
                if pool:
                    client.sandbox().close()
            ahead = f", {pool} networks ahead" if pool else ""
            figures[(backend, pool)] = report(f"detour, {backend}{ahead}, {template}:", elapsed, times)
        sdk = bench_sdk_rollouts(state, info, program)
        goals(figures, sdk)


def goals(figures: dict[tuple[str, int], tuple[float, float]], sdk: float | None) -> None:
    """The issue's goals for the namespace backend, met or not, from its best row."""
    namespace = [figure for (backend, _), figure in figures.items() if backend == "namespace"]
    if not namespace:
        return
    rate, spread = max(namespace)

    def said(met: bool) -> str:
        return "met" if met else "NOT MET"
    print(f"  goals, namespace: 10 rollouts/s: {said(rate >= 10)} ({rate:.1f}); more than AgentDiff's executor: "
          + (f"{said(rate > sdk)} ({rate:.1f} vs {sdk:.1f})" if sdk else "not measured")
          + f"; p99 at most 2x p50: {said(spread <= 2)} ({spread:.2f}x)")
