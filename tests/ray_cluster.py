"""A Ray cluster on this machine, as Ray's own multi-node tests make one (a head and workers, each
a `ray start --block` of its own, so one node can be stopped alone; one CPU each, no dashboard,
no usage stats, no log monitor or metrics: see QUIET), inside a network namespace of its own that
holds nothing but `lo`.

Why the namespace: Ray's GCS server and raylets listen on every interface whatever
`--node-ip-address` says, and Ray swaps 127.0.0.1 for the host's address. In a namespace whose
only interface is `lo`, every interface is loopback and the address Ray finds is 127.0.0.1, so the
cluster binds to loopback of that namespace and nothing else. The nodes, every driver (the
rollouts' and the CLI's: `Cluster.enter` prefixes a command) and so the stacks the nodes' actors
start all live there; a stack's sandboxes hang off it by their veths as they would off the host.
`ray stop` is not used: it stops every Ray process on the machine; the end kills what runs in the
namespace instead, and deletes the namespace. Used by tests/e2e/test_ray.py and `make bench`."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import psutil

from detour_client import Outcome
from detour_client.ray import RAY_NODE_ENV

BIN = Path(sys.executable).parent
NETNS_PREFIX = "rayt-"  # not "detour-": that prefix names a sandbox's netns (sandbox.netns reads it)
HEAD = "127.0.0.1:6379"  # a fresh namespace has every port free
# A dead node is noticed after 3 missed health checks a second apart (Ray's default: 30 s or more).
HEAD_CONFIG = '{"health_check_period_ms": 1000, "health_check_failure_threshold": 3}'
# What a node runs that no driver here reads: the log monitor (drivers set log_to_driver=False) was
# a fifth of an idle head's CPU (3.1% of a core -> 2.4%, docs/scaling.md); the rest of what Ray
# does periodically and detour does not use is RAY_NODE_ENV's. The head runs no autoscaler's monitor:
# these clusters are static (KubeRay's operator decides that on KubeRay).
QUIET = ("--include-log-monitor", "false")
STARTED = b"Ray runtime started."  # what `ray start` prints once its node is registered
LISTEN = {"tcp": "0A", "tcp6": "0A", "udp": "07", "udp6": "07"}  # /proc/net state of a listening socket

# The driver: rollouts over the cluster, each outcome a JSON line as it comes back.
DRIVER = """
import dataclasses, json, sys
from detour_client import Client
args = json.loads(sys.argv[1])
for outcome in Client().rollouts(args.pop("suite"), args.pop("agent"), **args):
    print(json.dumps(dataclasses.asdict(outcome)), flush=True)
"""


class Cluster:
    def __init__(self, folder: Path) -> None:
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")} | RAY_NODE_ENV | {
            "TMPDIR": str(folder / "tmp"), "PATH": f"{BIN}:{os.environ['PATH']}"}
        (folder / "tmp").mkdir()
        self.folder = folder
        self.address = HEAD
        self.netns = NETNS_PREFIX + secrets.token_hex(4)
        self.enter = ["nsenter", f"--net=/run/netns/{self.netns}", "--"]  # only the network: files stay shared
        self.nodes: list[subprocess.Popen] = []
        self.logs: dict[int, Path] = {}  # what each node (by pid) said, for a failure's reader

    def start(self, *flags: str) -> subprocess.Popen:
        log = self.folder / f"node-{len(self.logs)}.log"
        with log.open("ab") as out:
            node = subprocess.Popen([*self.enter, BIN / "ray", "start", "--block", "--node-ip-address", "127.0.0.1",
                                     "--num-cpus", "1", "--object-store-memory", str(80 << 20), "--disable-usage-stats",
                                     "--dashboard-agent-listen-port", "0", *QUIET, *flags],
                                    env=self.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        self.logs[node.pid] = log
        self.nodes.append(node)
        return node

    def started(self, node: subprocess.Popen) -> bool:
        """Whether `ray start` said its node is up, which it says once the GCS has the node
        registered (so no driver need ask), rather than exiting first."""
        while node.poll() is None:
            if STARTED in self.logs[node.pid].read_bytes():
                return True
            time.sleep(0.1)
        return False

    def join(self) -> None:
        """A worker. Ray gives a node 30 s to register, which a busy machine may not meet (`timed
        out during startup`, 'Deadline Exceeded'): such a start is tried again, up to three times."""
        for _ in range(3):
            worker = self.start("--address", self.address)
            if self.started(worker):
                return
            self.nodes.remove(worker)
        raise AssertionError(f"a worker did not join: {self.said(worker)}")

    def alive_nodes(self) -> dict[str, str]:
        """The alive nodes' ids and addresses, as their raylets registered them."""
        try:  # a driver waits for a head that is not up yet: asked again after a while, not failed
            done = subprocess.run([*self.enter, sys.executable, "-c", "import ray; ray.init(address=%r, "
                                   "log_to_driver=False); print(*(n['NodeID'] + '=' + n['NodeManagerAddress'] "
                                   "for n in ray.nodes() if n['Alive']))" % self.address],
                                  env=self.env, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            return {}
        return dict(word.split("=") for word in done.stdout.split())

    def rollouts(self, suite: Path, agent: list[str], **options: object) -> Iterator[Outcome]:
        """`Client().rollouts(..., ray_address=)` from a driver in the namespace, each outcome as it
        comes; the driver is stopped when the stream is closed early."""
        args = {"suite": str(suite), "agent": agent, "ray_address": self.address,
                "stack_command": [str(BIN / "detour")], **options}
        with (self.folder / "driver.log").open("ab") as log:
            driver = subprocess.Popen([*self.enter, sys.executable, "-c", DRIVER, json.dumps(args)], env=self.env,
                                      stdout=subprocess.PIPE, stderr=log, text=True)
        try:
            for line in driver.stdout:
                yield Outcome(**json.loads(line))
            assert driver.wait() == 0, f"the driver exited {driver.returncode}: {self.tail('driver.log')}"
        finally:
            if driver.poll() is None:
                driver.terminate()
                driver.wait()
            driver.stdout.close()

    def tail(self, name: str) -> str:
        return (self.folder / name).read_text(errors="replace")[-3000:]

    def said(self, node: subprocess.Popen) -> str:
        return self.tail(self.logs[node.pid].name)

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

    def inside(self) -> list[psutil.Process]:
        """Every process whose network is the namespace's (the nodes, drivers, stacks, Ray's workers)."""
        mine = f"net:[{os.stat(f'/run/netns/{self.netns}').st_ino}]"
        found = []
        for process in psutil.process_iter():
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/{process.pid}/ns/net") == mine:
                    found.append(process)
        return found

    def links(self) -> list[str]:
        """The namespace's interfaces: `lo`, and a host-side veth per sandbox its stacks run."""
        shown = subprocess.run(["ip", "-n", self.netns, "-o", "link", "show"], capture_output=True, text=True)
        return [line.split(":")[1].strip().split("@")[0] for line in shown.stdout.splitlines()]

    def sandboxes(self) -> set[str]:
        """Sandboxes whose host side is in the namespace (their veth, or their nft table)."""
        tables = subprocess.run([*self.enter, "nft", "list", "tables"], capture_output=True, text=True).stdout
        ids = {name[2:-1] for name in self.links() if name.startswith("dt") and name.endswith("h")}
        return ids | {line.split()[-1].removeprefix("detour_") for line in tables.splitlines() if "detour_" in line}


def listeners(net: Path) -> dict[int, str]:
    """The listening sockets a network namespace's /proc/PID/net shows: inode -> protocol and hex address."""
    found = {}
    for protocol, state in LISTEN.items():
        with contextlib.suppress(FileNotFoundError):
            for row in (net / protocol).read_text().splitlines()[1:]:
                words = row.split()
                if words[3] == state:
                    found[int(words[9])] = f"{protocol} {words[1]}"
        # words: sl, local address, remote address, state, queues, ..., uid, timeout, inode
    return found


def sockets(processes: list[psutil.Process]) -> set[int]:
    """The inodes of the sockets the processes hold open."""
    found = set()
    for process in processes:
        with contextlib.suppress(psutil.Error):
            for fd in Path(f"/proc/{process.pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    if (target := os.readlink(fd)).startswith("socket:["):
                        found.add(int(target[8:-1]))
    return found


def _end(made: Cluster) -> None:
    """Every node stopped, whatever is still in the namespace killed, the namespace deleted."""
    for node in reversed(made.nodes):
        made.stop(node)
    if Path("/run/netns", made.netns).exists():
        left = made.inside()
        for process in left:
            with contextlib.suppress(psutil.Error):
                process.kill()
        psutil.wait_procs(left, timeout=30)
        subprocess.run(["ip", "netns", "del", made.netns], capture_output=True)


@contextlib.contextmanager
def cluster(nodes: int = 3) -> Iterator[Cluster]:
    """A head and `nodes - 1` workers in a new namespace; all of it gone at the end, also on failure."""
    folder = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))  # short: Ray's sockets live under it
    made = Cluster(folder)
    try:
        subprocess.run(["ip", "netns", "add", made.netns], check=True, capture_output=True)
        subprocess.run(["ip", "-n", made.netns, "link", "set", "lo", "up"], check=True, capture_output=True)
        assert made.links() == ["lo"], made.links()
        head = made.start("--head", "--port", HEAD.rpartition(":")[2], "--include-dashboard", "false",
                          "--temp-dir", str(folder / "ray"), "--system-config", HEAD_CONFIG, "--no-monitor")
        assert made.started(head), made.said(head)
        for _ in range(nodes - 1):  # one at a time: two started together, one often timed out registering
            made.join()
        assert set(made.alive_nodes().values()) == {"127.0.0.1"}, made.alive_nodes()
        yield made
    finally:
        _end(made)
        shutil.rmtree(folder, ignore_errors=True)
