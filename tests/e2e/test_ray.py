"""detour on a Ray cluster: three nodes (a head and two workers, each started with `ray start` as
Ray's own multi-node tests do) in a network namespace of the test's own that holds only `lo`, a
stack per node owned by a Ray actor, and the acme suite's rollouts spread over them from a driver
in the same namespace. No Ray process listens anywhere but that namespace's loopback; the rollouts
run on more than one node and score as the same rollouts on one local stack; when a worker dies
mid-run its rollouts run again on the others, each reported once, and no node that remains keeps a
sandbox, namespace or environment (the dead node's own sandboxes stay on this machine, as they
would not on a real one: at most its two under way, removed by the test).

Lean on purpose (2 cores shared, and make test's time): one cluster for the file, one CPU per
node, two rollouts at once per node; the suite seven times (105 rollouts) against one local play
of it, the suite's first 8 when a node is killed. The agent names the runtime's own interpreter,
so that each node's stack forks it from its warm server (sandbox/warm.py) instead of starting an
interpreter per rollout: a bare `python3` is not taken warm.
Not `exclusive`: it looks only at its own namespace's sandboxes, never the machine's."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from sandbox import netns
from sandbox.own_runtime import own_runtime
from tests.conftest import needs_namespaces
from tests.ray_cluster import BIN, Cluster, cluster as ray_cluster, listeners, sockets
from tests.waiting import until

pytestmark = needs_namespaces

ROOT = Path(__file__).parents[2]
SUITE = ROOT / "examples" / "suites" / "acme.json"
AGENT = [str(own_runtime().python), str(ROOT / "tests" / "agents" / "acme_suite.py")]
TESTS = 15
ROUNDS = 7  # the whole suite 7 times: 105 rollouts
KILLED_RUN = 8
LOOPBACK = ("0100007F:", "0000000000000000FFFF00000100007F:", "00000000000000000000000001000000:")


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """One cluster for the file (its start is most of a test's time); the test that stops a worker goes last."""
    with ray_cluster(3) as made:
        yield made


def test_ray_listens_only_on_the_loopback_of_its_own_namespace(cluster):
    nodes = [psutil.Process(node.pid) for node in cluster.nodes]
    ray = {process.pid: process for node in nodes for process in [node, *node.children(recursive=True)]}
    assert {"gcs_server", "raylet"} <= {process.name() for process in ray.values()}
    assert set(ray) <= {process.pid for process in cluster.inside()}  # every Ray process is in the namespace
    held = sockets(list(ray.values()))
    inside = {inode: address for inode, address in listeners(Path(f"/proc/{nodes[0].pid}/net")).items()
              if inode in held}
    assert any(address.endswith(":18EB") for address in inside.values()), inside  # the GCS, port 6379
    assert all(address.split()[1].startswith(LOOPBACK) for address in inside.values()), inside
    assert not held & set(listeners(Path("/proc/self/net")))  # none in this (the host's) namespace


def test_a_hundred_rollouts_spread_over_the_nodes_and_score_as_on_one_stack(cluster, api_client):
    local = {o.id: (o.score, [a.passed for a in o.assertions])
             for o in api_client.rollouts(SUITE, AGENT, n=1, workers=2, backend="namespace")}
    assert sorted(local) == sorted(f"acme_{i}" for i in range(1, TESTS + 1))
    assert {score for score, _ in local.values()} == {1.0}  # so that equal scores are not equal failures
    spread = list(cluster.rollouts(SUITE, AGENT, n=ROUNDS, workers=2, backend="namespace"))
    assert sorted((o.id, o.rollout) for o in spread) == sorted(
        (test, rollout) for test in local for rollout in range(ROUNDS))  # each reported once
    nodes = Counter(o.node for o in spread)
    assert len(nodes) == 3, nodes  # every node had two at once from the start, and took more as it freed up
    assert cluster.homes() == [] and cluster.sandboxes() == set()  # every stack stopped, its home gone
    differ = [(o.id, o.rollout, o.score, o.data["stderr_tail"][-300:]) for o in spread
              if (o.score, [a["passed"] for a in o.data["assertions"]]) != local[o.id]]
    assert not differ, differ  # each rollout's score and every assertion's verdict as on the local stack


def test_suite_run_takes_the_cluster_on_the_command_line(cluster, tmp_path):
    done = subprocess.run([*cluster.enter, BIN / "detour", "suite", "run", SUITE, "--agent", " ".join(AGENT),
                           "--test", "acme_2", "--backend", "namespace", "--ray", cluster.address, "--json"],
                          capture_output=True, text=True, env=cluster.env | {"DETOUR_HOME": str(tmp_path / "home")})
    report = json.loads(done.stdout or "{}")
    assert done.returncode == 0 and [(t["id"], t["passed"]) for t in report["tests"]] == [("acme_2", True)], done.stderr
    assert cluster.homes() == []


def test_a_worker_that_dies_mid_run_has_its_rollouts_run_again_elsewhere(cluster, tmp_path):
    suite = json.loads(SUITE.read_text())
    suite["tests"] = suite["tests"][:KILLED_RUN]  # enough for every node to have two under way at the kill
    (tmp_path / "suite.json").write_text(json.dumps(suite))
    stream = cluster.rollouts(tmp_path / "suite.json", AGENT, n=1, workers=2, backend="namespace")
    first = next(stream)  # every node has rollouts under way now
    nodes = set(cluster.alive_nodes())
    cluster.stop(cluster.nodes[2])
    alive = until(lambda: len(found := cluster.alive_nodes()) == 2 and found, cluster.nodes[0], "the node's end")
    [victim] = nodes - set(alive)
    outcomes = [first, *stream]
    assert sorted(o.id for o in outcomes) == sorted(f"acme_{i}" for i in range(1, KILLED_RUN + 1))  # each once
    assert all(o.score == 1.0 for o in outcomes), [(o.id, o.data["stderr_tail"][-300:]) for o in outcomes]
    assert all(home.startswith(f"detour-ray-{victim[:12]}") for home in cluster.homes())  # the others' stopped
    # What the dead node was running when it died stays on this one machine (a real dead node takes
    # it along): at most its two rollouts' sandboxes, whose owner died with it; removed here.
    orphans = cluster.sandboxes()
    for sid in orphans:
        netns.teardown(sid)
    assert len(orphans) <= 2, orphans
