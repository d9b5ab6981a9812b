"""A Ray cluster on this machine, as Ray's own multi-node tests make one: a head and workers, each
a `ray start --block` of its own (so that one node can be stopped alone), one CPU each, no
dashboard, no usage stats. Used by tests/e2e/test_ray.py and `make bench` (bench/ray.py).

Ray swaps `--node-ip-address 127.0.0.1` for the host's own address (its resolve_ip_for_localhost);
the kernel routes that address through the loopback device, so nothing leaves the machine:
`cluster()` checks it of every node rather than assume it."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from detour.stack import free_port
from tests.waiting import until

BIN = Path(sys.executable).parent
# Ray's GCS server and raylets listen on every interface whatever --node-ip-address says, and
# 127.0.0.1 is swapped for the host's own address: a cluster started here does not bind to
# loopback only, as this machine's rules ask of a test's cluster. So clusters start only where
# asked for; the way to lift this is to run the nodes and the driver in a network namespace of
# the test's own that holds nothing but `lo`.
OPT_IN = "DETOUR_RAY_CLUSTER"


def held_out() -> str | None:
    """Why no cluster starts here (None where DETOUR_RAY_CLUSTER=1 asks for one)."""
    if os.environ.get(OPT_IN) == "1":
        return None
    return (f"Ray's GCS and raylets listen on every interface, not loopback alone: set {OPT_IN}=1 to start "
            "a cluster anyway (tests/ray_cluster.py says why)")
# A dead node is noticed after 3 missed health checks a second apart (Ray's default: 30 s or more).
HEAD_CONFIG = '{"health_check_period_ms": 1000, "health_check_failure_threshold": 3}'


def head_port() -> int:
    """A free port outside the range Ray keeps for its workers (10002-19999)."""
    while (port := free_port("127.0.0.1", set())) in range(10002, 20000):
        pass
    return port


class Cluster:
    def __init__(self, folder: Path) -> None:
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")} | {
            "RAY_USAGE_STATS_ENABLED": "0", "TMPDIR": str(folder / "tmp"), "PATH": f"{BIN}:{os.environ['PATH']}"}
        (folder / "tmp").mkdir()
        self.folder = folder
        self.address = f"127.0.0.1:{head_port()}"
        self.nodes: list[subprocess.Popen] = []
        self.log = (folder / "nodes.log").open("ab")  # what the nodes said, for a failure's reader

    def start(self, *flags: str) -> subprocess.Popen:
        node = subprocess.Popen([BIN / "ray", "start", "--block", "--node-ip-address", "127.0.0.1", "--num-cpus", "1",
                                 "--disable-usage-stats", "--dashboard-agent-listen-port", "0", *flags],
                                env=self.env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self.nodes.append(node)
        return node

    def join(self, count: int) -> None:
        """A worker, one at a time: Ray gives a node 30 s to register, which a busy machine may
        not meet (`timed out during startup`); such a start is tried again, up to three times."""
        for _ in range(3):
            worker = self.start("--address", self.address)
            while worker.poll() is None and len(self.alive_nodes()) < count:
                pass
            if worker.poll() is None:
                return
            self.nodes.remove(worker)
        raise AssertionError(f"a worker did not join: see {self.folder / 'nodes.log'}")

    def alive_nodes(self) -> dict[str, str]:
        """The alive nodes' ids and addresses, as their raylets registered them."""
        try:  # a driver waits for a head that is not up yet: asked again after a while, not failed
            done = subprocess.run([sys.executable, "-c", "import ray; ray.init(address=%r, log_to_driver=False); "
                                   "print(*(n['NodeID'] + '=' + n['NodeManagerAddress'] for n in ray.nodes() "
                                   "if n['Alive']))" % self.address],
                                  env=self.env, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            return {}
        return dict(word.split("=") for word in done.stdout.split())

    def stop(self, node: subprocess.Popen) -> None:
        """`ray start --block` stops the node's processes when it is told to end."""
        if node.poll() is None:
            node.send_signal(signal.SIGTERM)
            try:
                node.wait(120)
            except subprocess.TimeoutExpired:
                os.killpg(node.pid, signal.SIGKILL)
                node.wait()

    def homes(self) -> list[str]:
        """The stacks' homes (detour_client.ray makes them in the nodes' TMPDIR) still on disk."""
        return sorted(p.name for p in (self.folder / "tmp").glob("detour-ray-*"))


@contextlib.contextmanager
def cluster(nodes: int = 3) -> Iterator[Cluster]:
    """A head and `nodes - 1` workers, every node stopped at the end, also on failure."""
    folder = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))  # short: Ray's sockets live under it
    made = Cluster(folder)
    try:
        head = made.start("--head", "--port", made.address.rpartition(":")[2], "--include-dashboard", "false",
                          "--temp-dir", str(folder / "ray"), "--system-config", HEAD_CONFIG)
        until(lambda: len(made.alive_nodes()) == 1, head, "the head")
        for count in range(2, nodes + 1):
            made.join(count)
        for address in set(made.alive_nodes().values()):
            route = subprocess.run(["ip", "route", "get", address], capture_output=True, text=True).stdout
            assert route.startswith(f"local {address} dev lo"), f"a Ray node at {address}, off this machine: {route}"
        yield made
    finally:
        for node in reversed(made.nodes):
            made.stop(node)
        made.log.close()
        shutil.rmtree(folder, ignore_errors=True)
