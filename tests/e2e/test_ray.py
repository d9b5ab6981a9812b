"""detour on a Ray cluster: three nodes (a head and two workers, each started with `ray start` as
Ray's own multi-node tests do) in a network namespace of the test's own that holds only `lo`, a
stack per node owned by a Ray actor, and the acme suite's rollouts spread over them from a driver
in the same namespace. No Ray process listens anywhere but that namespace's loopback; the rollouts
run on more than one node and score as the same rollouts on one local stack; when a worker dies
mid-run its rollouts run again on the others, each reported once, and no node that remains keeps a
sandbox, namespace or environment (the dead node's own sandboxes stay on this machine, as they
would not on a real one: at most its two under way, removed by the test).

Small on purpose (2 cores shared, and make test's time): one cluster for the file, one CPU per
node, two rollouts at once per node, the suite once (15 rollouts), its first 8 when a node is killed; make bench
plays 100.
Not `exclusive`: it looks only at its own namespace's sandboxes, never the machine's."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from sandbox import netns
from tests.conftest import needs_namespaces
from tests.ray_cluster import BIN, Cluster, cluster as ray_cluster, listeners, sockets
from tests.waiting import until

pytestmark = needs_namespaces

ROOT = Path(__file__).parents[2]
SUITE = ROOT / "examples" / "suites" / "acme.json"
AGENT = ["python3", str(ROOT / "tests" / "agents" / "acme_suite.py")]
TESTS = 15
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


def test_rollouts_spread_over_three_nodes_and_score_as_on_one_stack(cluster, api_client):
    spread = list(cluster.rollouts(SUITE, AGENT, n=1, workers=2, backend="namespace"))
    assert sorted(o.id for o in spread) == sorted(f"acme_{i}" for i in range(1, TESTS + 1))  # each once
    assert len({o.node for o in spread}) >= 2, {o.node for o in spread}
    assert cluster.homes() == [] and cluster.sandboxes() == set()  # every stack stopped, its home gone
    local = list(api_client.rollouts(SUITE, AGENT, n=1, workers=2, backend="namespace"))
    assert {o.id: [a["passed"] for a in o.data["assertions"]] for o in spread} == {
        o.id: [a.passed for a in o.assertions] for o in local}
    assert all(o.score == 1.0 for o in spread), [(o.id, o.data["stderr_tail"][-300:]) for o in spread if o.score < 1]


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
