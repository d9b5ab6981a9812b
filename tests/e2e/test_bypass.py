"""The isolating backends' promise (namespace and docker): the only way out is the proxy.

Every "cannot reach" case aims at a canary that this module runs in a namespace playing
the internet (10.214.0.2, fd99::2), with forwarding switched on as on a routing machine,
and asserts the canary saw nothing. A bare namespace beside it, with no detour rules,
shows that the same traffic does reach the canary when nothing stops it.
"""

import shutil
import subprocess
import uuid

import pytest

from tests.conftest import ISOLATING, needs_namespaces
from tests.e2e.netlab import canary, forwarding, in_ns, linked, namespace, seen
from tests.waiting import until

pytestmark = needs_namespaces

INTERNET, INTERNET6 = "10.214.0.2", "fd99::2"
HOST_SIDE = 'H=$(awk \'/nameserver/ {print $2}\' /etc/resolv.conf)\n'


@pytest.fixture(scope="module")
def internet(tmp_path_factory):
    """The canary's log, and a bare namespace that reaches it through the host."""
    log = tmp_path_factory.mktemp("internet") / "canary.log"
    with forwarding(), namespace() as inet, linked(inet, "10.214.0.1", INTERNET, "fd99::1", INTERNET6), \
            canary(inet, log, "--dns", "0.0.0.0:53", "--udp", "0.0.0.0:5353", "--icmp",
                   *[arg for port in (80, 443, 8000) for arg in ("--tcp", f"0.0.0.0:{port}")],
                   "--tcp", "[::]:80"), \
            namespace() as bare, linked(bare, "10.214.1.1", "10.214.1.2"):
        yield log, bare


@pytest.fixture
def canary_log(internet):
    log, _ = internet
    before = len(seen(log))
    yield lambda: seen(log)[before:]


@pytest.fixture(params=ISOLATING)
def backend(request):
    return request.param


def run_ns(live_stack, backend, env, code, suffix=".sh", **limits):
    from sandbox.base import Limits
    return live_stack.run(env, code, suffix, backend=backend, limits=Limits(**limits) if limits else None)


def test_control_the_canary_sees_traffic_that_nothing_stops(internet, canary_log):
    _, bare = internet
    for argv in (["curl", "-s", "--max-time", "3", f"http://{INTERNET}:8000/"],
                 ["python3", "-c", f"import socket; socket.socket(2, 2).sendto(b'x', ('{INTERNET}', 5353))"]):
        subprocess.run(in_ns(bare, *argv), capture_output=True, timeout=10)
    if shutil.which("ping"):
        subprocess.run(in_ns(bare, "ping", "-c", "1", "-W", "2", INTERNET), capture_output=True, timeout=10)
    for _ in range(50):
        if len(canary_log()) >= 2:
            break
        __import__("time").sleep(0.05)
    kinds = {line.split()[0] for line in canary_log()}
    assert {"tcp", "udp"} <= kinds


NO_PROXY_CLIENTS = {
    "curl --noproxy": (".sh", """
unset HTTPS_PROXY https_proxy HTTP_PROXY http_proxy
curl -sS --noproxy '*' -H 'Authorization: Bearer x' https://slack.com/api/chat.postMessage -d channel=general -d text={mark}
"""),
    "aiohttp defaults": (".py", """
import asyncio, aiohttp
async def main():
    async with aiohttp.ClientSession() as s:  # trust_env=False: ignores the proxy variables
        async with s.post("https://slack.com/api/chat.postMessage", headers={{"Authorization": "Bearer x"}},
                          data={{"channel": "general", "text": "{mark}"}}) as r:
            print(await r.text())
asyncio.run(main())
"""),
    "node fetch without NODE_USE_ENV_PROXY": (".sh", """
env -u NODE_USE_ENV_PROXY node -e 'fetch("https://slack.com/api/chat.postMessage", {{method: "POST",
  headers: {{Authorization: "Bearer x", "Content-Type": "application/json"}},
  body: JSON.stringify({{channel: "general", text: "{mark}"}})}}).then(r => r.text()).then(console.log)'
"""),
    "raw ssl socket": (".py", """
import os, socket, ssl
ctx = ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
body = "channel=general&text={mark}"
with socket.create_connection(("slack.com", 443)) as raw, ctx.wrap_socket(raw, server_hostname="slack.com") as s:
    s.sendall(("POST /api/chat.postMessage HTTP/1.1\\r\\nHost: slack.com\\r\\nAuthorization: Bearer x\\r\\n"
               "Content-Type: application/x-www-form-urlencoded\\r\\nConnection: close\\r\\n"
               f"Content-Length: {{len(body)}}\\r\\n\\r\\n{{body}}").encode())
    print(s.recv(65536).decode().split("\\r\\n")[0])
"""),
}


@pytest.mark.parametrize("client", NO_PROXY_CLIENTS)
def test_code_that_ignores_the_proxy_is_captured_transparently(live_stack, backend, make_env, canary_log, client):
    suffix, template = NO_PROXY_CLIENTS[client]
    env, mark = make_env(), f"t-{uuid.uuid4().hex[:8]}"
    result = run_ns(live_stack, backend, env, template.format(mark=mark), suffix)
    assert result.exit_code == 0, result.stderr
    assert [i["message_text"] for i in result.diff.inserts] == [mark]
    assert [(r.mode, r.decision, r.host, r.status) for r in result.requests] == [
        ("transparent", "routed", "slack.com", 200)]
    assert canary_log() == []


def test_a_hard_coded_address_is_intercepted_by_sni(live_stack, backend, make_env, canary_log):
    env = make_env()
    code = f"curl -sS --noproxy '*' --resolve slack.com:443:{INTERNET} -H 'Authorization: Bearer x' " \
           "https://slack.com/api/auth.test"
    result = run_ns(live_stack, backend, env, code)
    assert '"ok":true' in result.stdout
    assert [(r.mode, r.decision) for r in result.requests] == [("transparent", "routed")]
    assert canary_log() == []


def test_every_other_host_address_port_and_protocol_is_denied_or_dropped(live_stack, backend, make_env, canary_log):
    env = make_env()
    code = f"""
c() {{ curl -s --max-time 3 --noproxy '*' "$@"; echo " rc=$?"; }}
c https://evil.example.com/
c http://evil.example.com/
c http://{INTERNET}/
c https://{INTERNET}/ -k
c http://{INTERNET}:8000/
c -g 'http://[{INTERNET6}]/'
python3 - <<'PY'
import socket
socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("{INTERNET}", 5353))
name = b"".join(bytes([len(label)]) + label for label in b"exfil.example.com".split(b"."))
query = b"\\x12\\x34\\x01\\x00\\x00\\x01\\x00\\x00\\x00\\x00\\x00\\x00" + name + b"\\x00\\x00\\x01\\x00\\x01"
dns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
dns.settimeout(3)
dns.sendto(query, ("{INTERNET}", 53))
print("dns answered by", socket.inet_ntoa(dns.recv(512)[-4:]))  # the A record's address
PY
ping -c 1 -W 2 {INTERNET} >/dev/null 2>&1; echo "ping rc=$?"
sleep 1
"""
    result = run_ns(live_stack, backend, env, code)
    lines = result.stdout.splitlines()
    assert all('"error": "denied"' in line for line in lines[:4])  # names and bare addresses, http and https
    assert lines[4] != " rc=0" and lines[5] != " rc=0"
    assert lines[6].startswith("dns answered by 10.213.")  # detour's resolver, not the canary
    assert lines[7] != "ping rc=0"
    assert [(r.mode, r.decision) for r in result.requests] == [("transparent", "denied")] * 4
    assert canary_log() == []
    assert result.diff.inserts == []


def test_the_sandbox_cannot_reach_replicas_control_endpoints_or_host_services(live_stack, backend, make_env):
    from tests.e2e.canary import Canary
    host_service = Canary()
    try:
        env, replica = make_env(), live_stack.info.replica_port
        code = HOST_SIDE + f"""
for url in http://$H:{replica}/api/platform/environments http://127.0.0.1:{replica}/api/platform/health \\
           http://$H:{host_service.port}/ http://127.0.0.1:{host_service.port}/ http://$H:22/; do
  curl -s --max-time 3 --noproxy '*' "$url" >/dev/null; echo "rc=$?"
done
"""
        result = run_ns(live_stack, backend, env, code)
        assert "rc=0" not in result.stdout and len(result.stdout.splitlines()) == 5
        assert host_service.seen == []
        assert host_service.probe() == 2
    finally:
        host_service.close()


def test_domain_fronting_without_a_proxy_is_denied(live_stack, backend, make_env):
    env = make_env()
    result = run_ns(live_stack, backend, env, "curl -s --noproxy '*' -H 'Host: evil.example.com' https://slack.com/api/auth.test")
    assert "host mismatch" in result.stdout
    assert [(r.mode, r.decision) for r in result.requests] == [("transparent", "denied")]


def test_detours_state_is_invisible_from_inside(live_stack, backend, make_env):
    env, home = make_env(), live_stack.state.home
    secrets = [home / "ca" / "detour-ca.key", home / "signing.key", home / "mitmproxy" / "mitmproxy-ca.pem",
               home / "audit", home / "policies", home / "environments"]
    code = "\n".join(f"cat {p} >/dev/null 2>&1 || ls {p} >/dev/null 2>&1 && echo READABLE {p}" for p in secrets)
    code += ("\nfind / \\( -path /proc -o -path /sys -o -path /dev \\) -prune -o "
             "\\( -name 'detour-ca.key' -o -name 'signing.key' -o -name 'mitmproxy-ca.pem' \\) -print 2>/dev/null"
             "\nid -u\ncat /proc/1/cmdline | tr '\\0' ' '")
    result = run_ns(live_stack, backend, env, code)
    assert "READABLE" not in result.stdout
    lines = result.stdout.splitlines()
    assert int(lines[-2]) >= (200_000 if backend == "namespace" else 1000)  # an unprivileged uid
    assert lines[-1].startswith("bwrap" if backend == "namespace" else "/sbin/docker-init")  # own PID namespace
    assert len(lines) == 2                                # find found no key anywhere


def test_another_sandbox_and_another_environment_are_out_of_reach(live_stack, backend, make_env):
    import threading
    import time

    from detour_core.credentials import secret_for
    from detour_core.paths import SANDBOX_ADDRESSES

    first, second = make_env(), make_env()
    server = threading.Thread(target=run_ns, args=(live_stack, backend, first, "timeout 8 python3 -m http.server 9000", ".sh"))
    server.start()
    try:
        found = until(lambda: [p.name for p in SANDBOX_ADDRESSES.glob("*") if p.read_text() == first], server,
                      "the listening sandbox never appeared")
        address = found[0]
        time.sleep(1)
        proxy = live_stack.info
        code = HOST_SIDE + f"""
curl -s --max-time 3 --noproxy '*' http://{address}:9000/ >/dev/null; echo "rc=$?"
curl -s -o /dev/null -w '%{{http_connect}}\\n' -x "http://{first}:{secret_for(live_stack.state, first)}@$H:{proxy.proxy_port}" \\
     -H 'Authorization: Bearer x' https://slack.com/api/chat.postMessage -d channel=general -d text=impostor
"""
        result = run_ns(live_stack, backend, second, code)
        assert result.stdout.splitlines()[0] != "rc=0"
        assert "407" in result.stdout + result.stderr
        assert live_stack.store.diff(first).inserts == []
        assert [r.reason for r in result.requests] == [f"credentials of another environment ({first})"]
    finally:
        server.join()
