"""A denied name is never resolved or connected to, shown with a canary resolver.

The whole stack runs in a network namespace this test creates, whose resolv.conf points
at a canary DNS server that answers every name with a canary TCP listener. If mitmproxy
looked up or connected to a denied host, the canary would record it.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from detour_core.paths import StatePaths
from mock_services.store import EnvironmentStore
from tests.e2e.netlab import canary, in_ns, namespace
from tests.waiting import until

BIN = Path(sys.executable).parent
CANARY_DNS = "127.0.0.53:53"


def can_make_namespaces() -> bool:
    return os.geteuid() == 0 and shutil.which("ip") is not None


pytestmark = pytest.mark.skipif(not can_make_namespaces(), reason="needs root and iproute2 (ip netns)")


@pytest.fixture
def netns():
    with namespace(resolver=CANARY_DNS.split(":")[0]) as name:
        yield name


@pytest.fixture
def canary_log(netns, tmp_path):
    with canary(netns, tmp_path / "canary.log", "--dns", CANARY_DNS, "--tcp", "127.0.0.1:80",
                "--tcp", "127.0.0.1:443") as log:
        yield log


@pytest.fixture
def served_home(netns, tmp_path):
    home = tmp_path / "home"
    env = os.environ | {"DETOUR_HOME": str(home)}
    proc = subprocess.Popen(in_ns(netns, str(BIN / "detour"), "serve"), env=env)
    try:
        until((home / "stack.json").exists, proc, "detour serve did not start")
        yield StatePaths(home), env
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def test_denied_names_cause_no_dns_and_no_connection(netns, canary_log, served_home):
    state, env = served_home
    env_id = EnvironmentStore(state).create("slack_default").env_id
    run = subprocess.run(
        in_ns(netns, str(BIN / "detour"), "run", "--env", env_id, "--json", "--",
              "bash", "-c", "curl -s https://evil.example.com/x; echo; curl -s http://evil.example.com/x; echo;"
                            "curl -s -H 'Authorization: Bearer x' https://slack.com/api/auth.test"),
        env=env, capture_output=True, text=True, timeout=120)
    result = json.loads(run.stdout)
    lines = result["stdout"].splitlines()
    assert json.loads(lines[0])["error"] == "denied"
    assert json.loads(lines[-1])["ok"] is True  # the stack is alive and routing
    assert [r["decision"] for r in result["requests"]] == ["denied", "denied", "routed"]
    assert canary_log.read_text().splitlines() == ["ready"]

    # Control: the canary does see a lookup and a connection made from this namespace.
    subprocess.run(in_ns(netns, "curl", "-s", "--max-time", "5", "http://evil.example.com/"),
                   capture_output=True, env={"PATH": os.environ["PATH"]})
    seen = canary_log.read_text()
    assert "dns query" in seen and "tcp to ('127.0.0.1', 80)" in seen
