"""The proxy under a user of its own (detour/proxy_user.py, #49 item 7): what the kernel says of
its processes, what a compromised proxy (code run exactly as the proxy is run: its user, its
mount namespace, its limits) can read, write and reach, and a run through it end to end."""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from certs.authority import CertificateAuthority
from detour.proxy_user import MEMORY_MB, PROXY_USER_VARIABLE, ProxyUser
from detour.stack import Stack, running_stack
from detour_core.credentials import load_or_create_key
from detour_core.paths import StatePaths
from detour_core.policy import build_policy, policy_file, save_policy
from mock_services.store import EnvironmentStore
from tests.conftest import LiveStack

DETOUR = str(Path(sys.executable).parent / "detour")

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("nft"), reason="the proxy user needs root and nftables")

COMPROMISED = r"""
import json, socket, sys
home, other, foreign, replica, model = sys.argv[1:6]

def read(path):
    try:
        open(path, "rb").read()
        return "read"
    except OSError as e:
        return type(e).__name__

def write(path):
    try:
        with open(path, "w") as out:
            out.write("x")
        return "written"
    except OSError as e:
        return type(e).__name__

def reach(port):
    try:
        socket.create_connection(("127.0.0.1", int(port)), timeout=2).close()
        return "connected"
    except OSError as e:
        return type(e).__name__

own = socket.create_server(("127.0.0.1", 0))  # a listener of its own (as its model translator is)
print(json.dumps({
    "reads": {name: read(f"{home}/{name}") for name in ("api.key", "signing.key", "ca/detour-ca.key", "proxy/signing.key")},
    "other home": {name: read(f"{other}/{name}") for name in ("signing.key", "api.key", "mitmproxy/mitmproxy-ca.pem")},
    "writes": {name: write(f"{home}/{name}") for name in ("policies/server.json", "secrets/x.json", "stack.json",
                                                          "proxy/x", "audit/x")},
    "reaches": {name: reach(port) for name, port in (("foreign", foreign), ("replica", replica),
                                                        ("model server", model), ("own", own.getsockname()[1]))},
}))
"""


@pytest.fixture(scope="module")
def confined(tmp_path_factory) -> Iterator[tuple[Stack, LiveStack]]:
    root = tmp_path_factory.mktemp("proxy-user")
    state = StatePaths(root / "home").ensure()
    (root / "scripts").mkdir()
    stack = Stack(state)
    with stack as info:
        yield stack, LiveStack(state, info, EnvironmentStore(state), root / "scripts")


@pytest.fixture
def other_home() -> Iterator[Path]:
    """Another detour home on the machine, where a proxy's mount namespace does not cover it."""
    home = Path(tempfile.mkdtemp(prefix="detour-other-home-"))
    try:
        state = StatePaths(home).ensure()
        CertificateAuthority(state).ensure()
        load_or_create_key(state.signing_key)
        load_or_create_key(state.api_key_file)
        yield home
    finally:
        shutil.rmtree(home)


def status(pid: int) -> dict[str, str]:
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return {key: value.strip() for key, _, value in (line.partition(":") for line in lines)}


def test_the_proxy_runs_as_its_own_user_without_capabilities_and_within_its_limits(confined):
    stack, _ = confined
    uid = int((stack.state.home / "proxy.uid").read_text())
    found = status(stack.processes["proxy"].pid)
    assert found["Uid"].split() == [str(uid)] * 4 and found["Gid"].split() == [str(uid)] * 4 and uid != 0
    assert found["Groups"] == ""
    for caps in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert int(found[caps], 16) == 0, caps
    assert found["NoNewPrivs"] == "1"
    limits = Path(f"/proc/{stack.processes['proxy'].pid}/limits").read_text()
    assert "Max processes             4096                 4096" in limits
    assert "Max open files            " in limits and "unlimited" not in limits.split("Max open files")[1].splitlines()[0]
    groups = dict(line.split(":", 2)[1:] for line in Path(f"/proc/{stack.processes['proxy'].pid}/cgroup").read_text().splitlines())
    memory = Path("/sys/fs/cgroup/memory" + groups["memory"], "memory.limit_in_bytes") if "memory" in groups \
        else Path("/sys/fs/cgroup" + groups[""], "memory.max")
    assert "detour.proxy-" in str(memory) and int(memory.read_text()) == MEMORY_MB * 1024 * 1024


def test_a_compromised_proxy_reads_writes_and_reaches_only_what_it_needs(confined, other_home):
    stack, live = confined
    foreign = socket.create_server(("127.0.0.1", 0))  # a listener no policy allows
    model = socket.create_server(("127.0.0.1", 0))  # a model server a policy names
    env_id = live.env()
    save_policy(policy_file(stack.state, env_id), build_policy(models=[
        {"host": "api.openai.com", "base_url": f"http://127.0.0.1:{model.getsockname()[1]}/v1"}]))
    stack.proxy_user.egress.refresh()  # its watcher would within POLICY_LOOK_S
    try:
        argv = stack.proxy_user.wrap([sys.executable, "-c", COMPROMISED, str(stack.state.home), str(other_home),
                                      str(foreign.getsockname()[1]), str(live.info.replica_port),
                                      str(model.getsockname()[1])])
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=os.environ | {"DETOUR_HOME": str(stack.state.home)})
        assert done.returncode == 0, done.stderr
        found = json.loads(done.stdout)
        assert found["reads"] == {"api.key": "PermissionError", "signing.key": "PermissionError",
                                  "ca/detour-ca.key": "PermissionError", "proxy/signing.key": "read"}
        assert set(found["other home"].values()) == {"PermissionError"}
        assert found["writes"] == {"policies/server.json": "PermissionError", "secrets/x.json": "PermissionError",
                                   "stack.json": "PermissionError", "proxy/x": "PermissionError", "audit/x": "written"}
        assert found["reaches"] == {"foreign": "TimeoutError", "replica": "connected", "model server": "connected",
                                    "own": "connected"}
        foreign.settimeout(0.5)
        with pytest.raises(socket.timeout):
            foreign.accept()  # the handshake never completed: nothing reached the listener
    finally:
        foreign.close()
        model.close()


def test_a_run_goes_through_the_confined_proxy_end_to_end(confined):
    _, live = confined
    result = live.run(live.env(), """
from slack_sdk import WebClient
slack = WebClient(token="xoxb-1")
room = slack.conversations_create(name="confined")["channel"]["id"]
print(slack.chat_postMessage(channel=room, text="through the proxy's own user")["ok"])
""", ".py", backend="namespace")
    assert result.exit_code == 0 and result.stdout.strip() == "True", result.stderr
    assert [r["message_text"] for r in result.diff.inserts if r["__table__"] == "messages"] == ["through the proxy's own user"]
    assert [r.path for r in result.requests] == ["/api/conversations.create", "/api/chat.postMessage"]  # its audit


def test_a_background_stack_started_from_the_folder_holding_its_home_confines_its_proxy(tmp_path):
    """`detour run` in a folder that holds the home, behind a folder only root enters (pytest's,
    as the default home lies under /root): its background stack runs from that folder, which
    the proxy is not shown, while the home is."""
    env = os.environ | {"DETOUR_HOME": str(tmp_path / "home"), "DETOUR_BACKGROUND": "on"}
    (tmp_path / "hi.py").write_text("print('hi')\n")
    try:
        done = subprocess.run([DETOUR, "run", "--backend", "process", "hi.py"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and done.stdout == "hi\n", done.stderr
        info = running_stack(StatePaths(tmp_path / "home"))
        children = Path(f"/proc/{info.pid}/task/{info.pid}/children").read_text().split()
        proxy = next(p for p in children if b"proxy_addons" in Path(f"/proc/{p}/cmdline").read_bytes())
        assert status(int(proxy))["Uid"].split()[0] == (tmp_path / "home" / "proxy.uid").read_text()
        seen = Path(f"/proc/{proxy}/root{tmp_path}")  # the folder as the proxy's mount namespace shows it
        assert (seen / "home" / "proxy").is_dir() and not (seen / "hi.py").exists()
        assert os.readlink(f"/proc/{proxy}/cwd") == "/"
    finally:
        subprocess.run([DETOUR, "stack", "stop"], env=env, capture_output=True, timeout=60)


def test_detour_proxy_user_off_keeps_the_stack_s_user(tmp_path, monkeypatch):
    monkeypatch.setenv(PROXY_USER_VARIABLE, "off")
    user = ProxyUser(StatePaths(tmp_path / "home").ensure())
    assert not user.confined and not any(word.startswith("--reuid") for word in user.wrap(["true"]))
