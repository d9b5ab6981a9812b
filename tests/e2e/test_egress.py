"""Egress policy, default deny: an environment may reach the hosts its policy names, passed
through to the real host with its certificate verified and audited as `allowed`; everything
else stays denied. "The real host" is an HTTPS server this module runs in a lab namespace
(10.214.3.2, and 10.214.3.6 where no name leads), with certificates from a CA the module
makes: nothing leaves the machine. The proxy runs as its own user (detour/proxy_user.py): it
reaches an allowed host only at the addresses its stack's root process opened for the name."""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from detour.proxy_egress import HOSTS_MARK
from detour_core.audit import AuditLog
from detour_core.paths import StatePaths
from detour.runner import run_in_environment
from detour.stack import Stack
from mock_services.store import EnvironmentStore
from sandbox.languages import command_for
from tests.conftest import BACKENDS, ISOLATING, LiveStack, needs_namespaces
from sandbox.inbound import InboundBroker
from tests.e2e.netlab import REPO, in_ns, linked, namespace, sh
from tests.e2e.test_cli import DETOUR
from tests.e2e.upstream import TRUSTED, UNTRUSTED, make_certificates
from tests.waiting import until

pytestmark = needs_namespaces

UPSTREAM = "10.214.3.2"
SECOND = "10.214.3.6"  # the upstream's second address: only evil.test, which no policy allows, leads there
ASK = r"""
import json, requests
out = {}
for url in ["https://api.partner.test/hello", "https://eu.models.test/v1", "https://models.test/",
            "https://api.partner.test:8443/port", "https://10.214.3.2/literal", "https://untrusted.test/",
            "https://evil.test/", "https://slack.com/api/api.test"]:
    try:
        answer = requests.get(url, timeout=10)
        out[url] = [answer.status_code, answer.headers.get("X-Detour-Decision")]
    except requests.RequestException as e:
        out[url] = ["error", type(e).__name__]
print(json.dumps(out))
"""


class Lab(tuple):
    """(the live stack, the upstream's log of what reached it), as other modules unpack it, and
    the Stack itself (`running`), whose proxy user a test plays."""

    def __new__(cls, live: LiveStack, seen: Path, running: Stack) -> "Lab":
        made = super().__new__(cls, (live, seen))
        made.running = running
        return made


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """The upstream server in its namespace, and a stack that reaches it for the test names."""
    folder = tmp_path_factory.mktemp("upstream")
    ca = make_certificates(folder)
    root = tmp_path_factory.mktemp("egress")
    state = StatePaths(root / "home").ensure()
    scripts = root / "scripts"
    scripts.mkdir()
    hosts = {name: UPSTREAM for name in (*TRUSTED, UNTRUSTED, "models.test")} | {"evil.test": SECOND}
    with namespace() as ns, linked(ns, "10.214.3.1", UPSTREAM) as veth:
        sh("ip", "-n", ns, "addr", "add", f"{SECOND}/32", "dev", "eth0")
        sh("ip", "route", "add", f"{SECOND}/32", "via", UPSTREAM, "dev", veth)  # goes with the veth
        server = subprocess.Popen(in_ns(ns, sys.executable, "-m", "tests.e2e.upstream", str(folder)), cwd=REPO)
        try:
            until((folder / "ready").exists, server, "upstream did not start")
            running = Stack(state, upstream_hosts=hosts, upstream_ca=ca)
            with running as info:
                yield Lab(LiveStack(state, info, EnvironmentStore(state), scripts), folder / "seen", running=running)
        finally:
            server.terminate()
            server.wait(timeout=10)


def allow(stack: LiveStack, env: str, *args: str) -> None:
    subprocess.run([DETOUR, "env", "policy", env, *args], env=os.environ | {"DETOUR_HOME": str(stack.state.home)},
                   check=True, capture_output=True)


@pytest.mark.parametrize("backend", BACKENDS)
def test_allowed_hosts_pass_through_and_everything_else_stays_denied(lab, backend):
    stack, seen = lab
    env = stack.env()
    allow(stack, env, "--allow", "api.partner.test", "--allow", "*.models.test", "--allow", UNTRUSTED,
          "--capture", "headers")
    before = seen.read_text()
    result = stack.run(env, ASK, ".py", backend=backend)
    answers = json.loads(result.stdout)
    assert answers == {
        "https://api.partner.test/hello": [200, None],
        "https://eu.models.test/v1": [200, None],
        "https://models.test/": [403, "denied"],                 # *.models.test is for subdomains only
        "https://api.partner.test:8443/port": [403, "denied"],   # other ports stay denied
        "https://10.214.3.2/literal": [403, "denied"],           # so do addresses
        "https://untrusted.test/": [502, None],                  # allowed, but its certificate is not trusted
        "https://evil.test/": [403, "denied"],                   # default deny
        "https://slack.com/api/api.test": [200, None],           # still the replica, never passed through
    }, result.stderr
    decisions = [(r.host, r.decision) for r in result.requests]
    assert decisions[:2] == [("api.partner.test", "allowed"), ("eu.models.test", "allowed")]
    assert decisions[5] == (UNTRUSTED, "allowed") and decisions[7] == ("slack.com", "routed")
    assert ("Host", "api.partner.test") in result.requests[0].request.headers  # its own capture rules apply
    assert seen.read_text()[len(before):].splitlines() == ["api.partner.test /hello", "eu.models.test /v1"]


@pytest.mark.parametrize("backend", ISOLATING)
def test_code_that_skips_the_proxy_reaches_an_allowed_host_through_it(lab, backend):
    stack, seen = lab
    env = stack.env()
    allow(stack, env, "--allow", "api.partner.test")
    result = stack.run(env, "curl -s --noproxy '*' https://api.partner.test/direct; echo\n"
                            "curl -s -o /dev/null -w '%{http_code}' --noproxy '*' https://eu.models.test/", ".sh",
                       backend=backend)
    assert result.stdout.splitlines() == ['{"host": "api.partner.test", "path": "/direct"}', "403"], result.stderr
    assert [(r.mode, r.decision) for r in result.requests] == [("transparent", "allowed"), ("transparent", "denied")]


def test_without_a_policy_nothing_passes_and_changes_apply_at_once(lab):
    stack, seen = lab
    env = stack.env()
    program = stack.scripts / "once.py"
    program.write_text("import requests\nprint(requests.get('https://api.partner.test/x', timeout=10).status_code)")
    sandbox = stack.sandbox("process")

    def status() -> str:
        return run_in_environment(stack.state, stack.info, env, sandbox, command_for(program, sandbox.runtime),
                                  program=program).stdout.strip()

    assert status() == "403"
    allow(stack, env, "--allow", "api.partner.test")
    assert status() == "200"
    allow(stack, env, "--reset")
    assert status() == "403"
    denied = AuditLog(stack.state.audit_dir).read(env)[0]
    assert [r.decision for r in denied] == ["denied", "allowed", "denied"]


COMPROMISED = r"""
import json, os, socket, sys
broker, upstream, second = sys.argv[1:4]

def reach(address):
    try:
        socket.create_connection((address, 443), timeout=3).close()
        return "connected"
    except OSError as e:
        return type(e).__name__

def ask(host):
    with socket.socket(socket.AF_UNIX) as asking:
        asking.connect(os.environ[broker])
        asking.sendall(json.dumps({"host": host, "port": 443}).encode() + b"\n")
        return json.loads(asking.makefile().readline())

def datagram(address, port):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as out:
        out.settimeout(3)
        out.connect((address, port))
        try:
            out.send(b"q")
            out.recv(1)
            return "answered"
        except OSError as e:
            return type(e).__name__

before = reach(second)
asked = {host: ask(host) for host in ("evil.test", second, "api.partner.test")}
print(json.dumps({"before": before, "asked": asked, "after": {a: reach(a) for a in (upstream, second)},
                  "dns": datagram(second, 53), "hosts": open("/etc/hosts").read(),
                  "localhost": sorted({a[4][0] for a in socket.getaddrinfo("localhost", 80, proto=socket.IPPROTO_TCP)})}))
"""


def test_a_compromised_proxy_reaches_only_the_addresses_of_hosts_a_policy_passes_through(lab):
    """Code run as the proxy is (its user, its mount namespace, its broker) connects to the
    upstream's second address, which no allowed name leads to, and asks the stack's root process
    to open names: a name no policy allows and an address are refused; an allowed name opens
    its own address, not the other. It sends no datagram (DNS included: its /etc/hosts holds
    the names it reaches, as the stack resolved them)."""
    stack, _ = lab
    allow(stack, stack.env(), "--allow", "api.partner.test")
    socket.create_connection((SECOND, 443), timeout=5).close()  # root reaches it: the table decides below
    argv = lab.running.proxy_user.wrap([sys.executable, "-c", COMPROMISED, InboundBroker.VARIABLE, UPSTREAM, SECOND])
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["before"] == "ConnectionRefusedError"
    assert found["asked"] == {"evil.test": {"refused": "no policy passes evil.test:443 through"},
                              SECOND: {"refused": f"no policy passes {SECOND}:443 through"},
                              "api.partner.test": {"addresses": [UPSTREAM]}}
    assert found["after"] == {UPSTREAM: "connected", SECOND: "ConnectionRefusedError"}
    assert found["dns"] == "PermissionError"  # refused as it is sent
    assert HOSTS_MARK in found["hosts"] and "127.0.0.1" in found["localhost"]


@pytest.mark.parametrize("args, message", [
    (["--allow", "10.214.3.2"], "IP address"),
    (["--allow", "*.slack.com"], "can never be passed through"),
    (["--allow", "api.partner.test:8443"], "no ports"),
    (["--capture", "everything"], "everything"),
])
def test_bad_policies_are_refused_and_the_old_one_stays(lab, args, message):
    stack, _ = lab
    env = stack.env()
    allow(stack, env, "--allow", "api.partner.test")
    done = subprocess.run([DETOUR, "env", "policy", env, *args], capture_output=True, text=True,
                          env=os.environ | {"DETOUR_HOME": str(stack.state.home)})
    assert done.returncode == 2 and message in done.stderr
    shown = subprocess.run([DETOUR, "env", "policy", env], capture_output=True, text=True, check=True,
                           env=os.environ | {"DETOUR_HOME": str(stack.state.home)})
    assert json.loads(shown.stdout)["allow"] == ["api.partner.test"]


MESSAGES = ('{"token": "xoxb-1-SECRET", "text": "hello"}', "x" * 70000)
WEBSOCKET = r"""
import asyncio, json, aiohttp
MESSAGES = """ + repr(MESSAGES) + r"""

async def main():
    got = []
    async with aiohttp.ClientSession() as session:  # no proxy variables: captured where it goes
        async with session.ws_connect("wss://api.partner.test/socket") as ws:
            for text in MESSAGES:
                await ws.send_str(text)
                got.append((await ws.receive()).data[:20])
            await ws.send_bytes(b"\xff\xfebinary")
            got.append((await ws.receive()).data.hex())
    print(json.dumps(got))

asyncio.run(main())
"""


@pytest.mark.parametrize("backend", ISOLATING[:1])
def test_websocket_messages_pass_through_and_each_is_recorded(lab, backend):
    """An allowed host's WebSocket: every message reaches it and comes back as it was, and each
    has a record of its own after the upgrade's, with its way, its size and (bodies captured) its
    content, redacted and cut at the body limit."""
    stack, seen = lab
    env = stack.env()
    allow(stack, env, "--allow", "api.partner.test", "--capture", "bodies")
    result = stack.run(env, WEBSOCKET, ".py", backend=backend)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == ['echo: {"token": "xox', "echo: xxxxxxxxxxxxxx", b"echo: \xff\xfebinary".hex()], \
        result.stderr
    assert "xoxb-1-SECRET" in (seen.parent / "websocket").read_text()  # the host got the message as it was sent
    upgrade, *frames = [r for r in result.requests if r.host == "api.partner.test"]
    assert (upgrade.status, upgrade.websocket, upgrade.decision) == (101, None, "allowed")
    sizes = [size for m in (*MESSAGES, "12binary") for size in ((len(m), 0), (0, len(m) + 6))]
    assert [(f.method, f.websocket, f.request_bytes, f.response_bytes) for f in frames] == [
        ("WS", way, *size) for way, size in zip(["sent", "received"] * 3, sizes)]
    assert json.loads(frames[0].request.body) == {"token": "[REDACTED]", "text": "hello"}
    assert "xoxb-1-SECRET" not in json.dumps([f.model_dump() for f in result.requests])
    assert frames[2].request.truncated and frames[4].request.encoding == "base64"
