"""Namespace networks made ahead (DETOUR_NAMESPACE_POOL): a run takes one never used before,
reaches its own environment through it, and it is removed after that one run (in the
background); what a pool holds goes when it closes, and `detour doctor` finds and removes those of a process killed."""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox import netns
from sandbox.namespace import NamespaceSandbox, requirements_missing

pytestmark = pytest.mark.skipif(bool(requirements_missing()), reason="the namespace backend cannot run here")
DETOUR = str(Path(sys.executable).parent / "detour")
WHO = """import requests
print(requests.post("https://slack.com/api/auth.test", headers={"Authorization": "Bearer xoxb-1"}).json()["ok"])"""


def test_each_run_takes_a_network_made_ahead_once(live_stack):
    sandbox = NamespaceSandbox(live_stack.state, pool=2)
    try:
        first = live_stack.env()
        pool = sandbox.pools.pool(live_stack.info.access(first, "unused"), "proxy")
        assert pool.wait_full(60)
        ahead = {n.sandbox_ip: n.sid for n in pool.ready}
        used = []
        for env_id in (first, live_stack.env(), live_stack.env()):
            result = live_stack.run(env_id, WHO, ".py", sandbox=sandbox)
            assert (result.exit_code, result.stdout) == (0, "True\n"), result.stderr
            [client] = {r.client.rsplit(":", 1)[0] for r in result.requests}
            used.append(client)
            assert {r.env_id for r in result.requests} == {env_id}
        assert len(set(used)) == 3 and used[0] in ahead  # never a network twice
        waiting = [n.sid for n in pool.ready]
    finally:
        sandbox.close()  # waits for the networks being removed in the background
    assert waiting and not {*waiting, *ahead.values()} & netns.known_sandboxes()


KILLED = """
import json, sys, time
from sandbox.base import ProxyAccess
from sandbox.netns_pool import NetworkPools
pools = NetworkPools(2)
pool = pools.pool(ProxyAccess(env_id="", secret="", host="127.0.0.1", port=1, transparent_port=2, dns_port=3,
                              gateway_port=4), "proxy")
pool.wait_full(60)
print(json.dumps([n.sid for n in pool.ready]), flush=True)
time.sleep(600)
"""


def test_doctor_removes_the_networks_of_a_killed_pool(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", KILLED], stdout=subprocess.PIPE, text=True,
                            cwd=Path(__file__).parents[2])
    try:
        sids = json.loads(proc.stdout.readline())
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert len(sids) == 2 and set(sids) <= set(netns.leftovers())
    done = subprocess.run([DETOUR, "doctor"], env=os.environ | {"DETOUR_HOME": str(tmp_path / "home")},
                          capture_output=True, text=True)
    assert all(f"removed: sandbox {sid}" in done.stdout for sid in sids), done.stdout
    assert not set(sids) & netns.known_sandboxes()
