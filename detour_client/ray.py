"""detour on a Ray cluster: a stack per node, owned by a Ray actor pinned there, and rollouts
spread over the nodes as they free up.

Each actor starts its node's stack as a child process (`detour serve` on loopback, with a home
of its own), talks to it over HTTP, and stops it when the run ends; if the actor's process dies
the stack is told to leave too (the kernel's parent-death signal), and leaves nothing behind. A
rollout's environment, sandbox and proxy are its node's. A rollout whose node dies is played
again on another, so each is reported once. Ray is imported only here.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections import deque
from collections.abc import Iterator
from typing import Any

import ray
from ray.exceptions import RayActorError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from detour_client.http import StackClient, StackError
from detour_client.rollouts import Outcome, Rollout

STOP_WAIT_S = 60.0     # its runs under way are given this long to end
PR_SET_PDEATHSIG = 1
# The environment each node's `ray start` runs in (deploy/kuberay/raycluster.yaml, the test and
# bench clusters): Ray's periodic work that nodes running detour stacks have no use for, off or
# rarer. It is per node and per second, so it is most of what Ray costs a rollout (docs/scaling.md).
RAY_NODE_ENV = {
    "RAY_USAGE_STATS_ENABLED": "0",
    "RAY_enable_metrics_collection": "false",  # no exporter here reads them
    "RAY_enable_task_events": "false",  # every worker's task report each second: Ray's state API and timeline
    "RAY_enable_worker_prestart": "false",  # a node's only worker is its stack's actor: no idle ones kept
    "RAY_prestart_worker_first_driver": "false",
    "RAY_memory_monitor_refresh_ms": "0",  # Ray's OOM killer (4 looks a second): each sandbox has its own memory cap
    "RAY_raylet_check_gc_period_milliseconds": "5000",  # from 100: the stacks' results are small and inline
    "RAY_raylet_report_resources_period_milliseconds": "1000",  # from 100: actors are pinned to their node
    "RAY_kill_idle_workers_interval_ms": "1000",  # from 200
    "RAY_local_fs_monitor_interval_ms": "5000",  # from 100: the object store spills nothing here
}


def _leave_with_parent() -> None:
    """In the stack's child: SIGTERM when the actor's process dies, however it dies."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class ServedStack:
    """`detour serve` on loopback with a home of its own, as a child that leaves with its parent:
    a node's stack (below), or a local one run the same way (bench/ray.py's baseline)."""

    def __init__(self, command: list[str], prefix: str = "detour-ray-") -> None:
        self.home = tempfile.mkdtemp(prefix=prefix)
        env = os.environ | {"DETOUR_HOME": self.home, "DETOUR_BACKGROUND": "off"}
        port = _free_port()
        with open(os.path.join(self.home, "serve.log"), "wb") as log:
            self.process = subprocess.Popen([*command, "serve", "--host", "127.0.0.1", "--replica-port", str(port),
                                             "--proxy-port", str(_free_port()), "--workers", "1"],
                                            env=env, stdout=log, stderr=subprocess.STDOUT,
                                            preexec_fn=_leave_with_parent)
        key = subprocess.run([*command, "api-key"], env=env, capture_output=True, text=True, check=True).stdout.strip()
        self.stack = StackClient(f"http://127.0.0.1:{port}", api_key=key)
        self._wait_until_up()

    def _wait_until_up(self) -> None:
        """No deadline: a start on a busy node is only slow; a stack that died says so at once."""
        while not self.stack.health():
            if self.process.poll() is not None:
                self.stop()
                raise StackError(f"the stack did not start: {self._log_tail()}")
            time.sleep(0.2)

    def _log_tail(self) -> str:
        try:
            with open(os.path.join(self.home, "serve.log"), errors="replace") as log:
                return log.read()[-2000:]
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        """The stack ends its runs and leaves; its home (environments, logs) goes with it."""
        self.stack.close()
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.home, ignore_errors=True)


@ray.remote(num_cpus=0)
class NodeStack(ServedStack):
    """One node's stack: started with the actor, stopped by `stop` (or with the actor's process)."""

    def __init__(self, command: list[str]) -> None:
        super().__init__(command, prefix=f"detour-ray-{ray.get_runtime_context().get_node_id()[:12]}-")

    def node(self) -> str:
        return ray.get_runtime_context().get_node_id()

    def rollout(self, suite: dict[str, Any], job: Rollout, agent: list[str], options: dict[str, Any]) -> dict:
        return self.stack.rollout(suite, job, agent, **options).data

    def environments(self) -> list[dict[str, Any]]:
        return self.stack.environments()


def start_stacks(command: list[str], workers_per_node: int) -> dict[str, Any]:
    """An actor (and so a stack) on every alive node, by node id; each takes `workers_per_node` rollouts at once."""
    nodes = [node["NodeID"] for node in ray.nodes() if node["Alive"]]
    actors = {node: NodeStack.options(max_concurrency=workers_per_node + 2, scheduling_strategy=
                                      NodeAffinitySchedulingStrategy(node, soft=False)).remote(command)
              for node in nodes}
    try:
        ray.get([actor.node.remote() for actor in actors.values()])  # each one's stack is up
    except BaseException:
        stop_stacks(actors)
        raise
    return actors


def stop_stacks(actors: dict[str, Any]) -> None:
    """Every stack still reachable is stopped; a dead node's actor has nothing left to stop."""
    for actor in actors.values():
        try:
            ray.get(actor.stop.remote())
        except RayActorError:
            pass
        ray.kill(actor)


def spread(actors: dict[str, Any], suite: dict[str, Any], jobs: list[Rollout], agent: list[str],
           workers_per_node: int, options: dict[str, Any]) -> Iterator[Outcome]:
    """Rollouts to the nodes with room, yielded as they finish; a dead node's are queued again."""
    queue = deque(jobs)
    suite_ref = ray.put(suite)  # the suite once into the object store, not once a rollout (15 kB for acme)
    alive = dict(actors)
    running: dict[Any, tuple[str, Rollout]] = {}
    load = dict.fromkeys(alive, 0)
    while queue or running:
        for node, actor in alive.items():
            while queue and load[node] < workers_per_node:
                job = queue.popleft()
                running[actor.rollout.remote(suite_ref, job, agent, options)] = (node, job)
                load[node] += 1
        if not running:
            raise StackError("every node's stack is gone: no node left to run the remaining rollouts on")
        [ready], _ = ray.wait(list(running), num_returns=1)
        node, job = running.pop(ready)
        load[node] -= 1
        try:
            data = ray.get(ready)
        except RayActorError:  # the node (or its actor) died: the rollout runs again elsewhere
            alive.pop(node, None)
            queue.appendleft(job)
            continue
        yield Outcome.of(data, node)


def ray_rollouts(address: str, suite: dict[str, Any], jobs: list[Rollout], agent: list[str],
                 workers_per_node: int = 4, stack_command: list[str] | None = None,
                 **options: Any) -> Iterator[Outcome]:
    """The rollouts over the cluster at `address`: stacks start on the first `next()` and stop when
    the stream ends or is closed. `stack_command`: how a node runs detour (default `detour`)."""
    connected = ray.is_initialized()
    if not connected:
        ray.init(address=address, log_to_driver=False)
    actors = start_stacks(stack_command or ["detour"], workers_per_node)
    try:
        yield from spread(actors, suite, jobs, agent, workers_per_node, options)
    finally:
        stop_stacks(actors)
        if not connected:
            ray.shutdown()
