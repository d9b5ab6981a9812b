"""An environment's limits: a body over its limit is refused from its headers (413), never
buffered, and recorded with its declared size; its requests are paced to its rate and those
beyond a second's worth refused (429); the environment, and others, go on working."""

import json

import psutil
import pytest

from detour_core.policy import Policy, policy_file, save_policy
from tests.conftest import BACKENDS, UNREACHED_UPSTREAM

AGENT = """
import json, httpx
out = []
def chunks(total):
    sent = 0
    while sent < total:
        part = min(65536, total - sent)
        yield b"x" * part
        sent += part
for size in (400 * 1024 * 1024, 2000):  # declared; the first is never read
    try:
        r = httpx.post("https://slack.com/api/chat.postMessage", content=chunks(size), timeout=30,
                       headers={"Authorization": "Bearer xoxb-1", "Content-Length": str(size)})
        out.append([r.status_code, r.json().get("error")])
    except httpx.HTTPError as e:
        out.append(["closed", type(e).__name__])
r = httpx.post("https://slack.com/api/chat.postMessage", headers={"Authorization": "Bearer xoxb-1"},
               json={"channel": "general", "text": "still here"}, timeout=30)
out.append([r.status_code, r.json()["ok"]])
print(json.dumps(out))
"""


def proxy_rss(port: int) -> int:
    """The resident memory of the process that listens on the proxy's port."""
    listening = [c.pid for c in psutil.net_connections("tcp") if c.status == "LISTEN" and c.laddr.port == port]
    return psutil.Process(listening[0]).memory_info().rss


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_body_over_the_limit_is_refused_from_its_headers(live_stack, make_env, backend):
    env = make_env()
    save_policy(policy_file(live_stack.state, env), Policy(max_request_bytes=1000))
    before = proxy_rss(live_stack.info.proxy_port)
    result = live_stack.run(env, AGENT, ".py", backend=backend)
    assert result.exit_code == 0, result.stderr
    assert proxy_rss(live_stack.info.proxy_port) - before < 100 * 1024 * 1024, "the 400 MB body was held"
    huge, small, normal = json.loads(result.stdout)
    assert huge in ([413, "request_too_large"], ["closed", "WriteError"], ["closed", "RemoteProtocolError"])
    assert small == [413, "request_too_large"] and normal == [200, True]
    refused = [(r.decision, r.status, r.request_bytes, r.path) for r in result.requests if r.status == 413]
    assert refused == [("denied", 413, 400 * 1024 * 1024, "/api/chat.postMessage"),
                       ("denied", 413, 2000, "/api/chat.postMessage")]
    assert all("over the environment's limit of 1000" in r.reason for r in result.requests if r.status == 413)
    assert [row["message_text"] for row in result.diff.inserts] == ["still here"]


FLOOD = """
import json, time, httpx
from concurrent.futures import ThreadPoolExecutor
URL, AUTH = "https://slack.com/api/auth.test", {"Authorization": "Bearer xoxb-1"}
started = time.monotonic()
with httpx.Client(timeout=30) as client:  # one after another: paced, never refused
    paced = [client.post(URL, headers=AUTH).status_code for _ in range(5)]
paced_seconds = time.monotonic() - started

def once(_):
    with httpx.Client(timeout=30) as client:
        r = client.post(URL, headers=AUTH)
        return r.status_code, r.headers.get("Retry-After")
started = time.monotonic()
with ThreadPoolExecutor(12) as pool:  # twelve at once: one second's worth go, the rest are refused
    burst = list(pool.map(once, range(12)))
print(json.dumps({"paced": paced, "paced_seconds": paced_seconds, "burst": burst,
                  "burst_seconds": time.monotonic() - started}))
"""
QUIET = """
import json, httpx
r = httpx.post("https://slack.com/api/auth.test", headers={"Authorization": "Bearer xoxb-1"}, timeout=30)
print(json.dumps([r.status_code, r.json()["ok"]]))
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_environments_requests_are_paced_to_its_rate_beyond_it_429_and_others_go_on(live_stack, make_env, backend):
    noisy, quiet = make_env(), make_env()
    # A low rate, so that twelve threads outrun it even on a machine too busy to open twelve
    # connections a second.
    save_policy(policy_file(live_stack.state, noisy), Policy(max_requests_per_second=2))
    flooded = live_stack.run(noisy, FLOOD, ".py", backend=backend)
    assert flooded.exit_code == 0, flooded.stderr
    answer = json.loads(flooded.stdout)
    assert answer["paced"] == [200] * 5 and answer["paced_seconds"] >= 1.95  # 5 requests, 1/2 s apart
    statuses = [status for status, _ in answer["burst"]]
    assert statuses.count(429) >= 1 and 0 < statuses.count(200) <= 2 * (answer["burst_seconds"] + 1)
    assert all(retry == "1" for status, retry in answer["burst"] if status == 429)
    limited = [r for r in flooded.requests if r.status == 429]
    assert len(limited) == statuses.count(429)
    assert all(r.decision == "denied" and "more than 2 requests in one second" in r.reason for r in limited)
    calm = live_stack.run(quiet, QUIET, ".py", backend=backend)
    assert json.loads(calm.stdout) == [200, True]


UPLOADS = """
import json, httpx
from concurrent.futures import ThreadPoolExecutor
def upload(url):
    try:
        return httpx.post(url, content=b"x" * (3 << 20), timeout=30).status_code
    except httpx.HTTPError as e:
        return type(e).__name__
with ThreadPoolExecutor(4) as pool:
    print(json.dumps(list(pool.map(upload, ["https://denied.example.test/"] + ["https://%s/"] * 3))))
""" % UNREACHED_UPSTREAM


@pytest.mark.parametrize("backend", BACKENDS)
def test_uploads_refused_from_their_headers_are_answered_and_their_bytes_counted(live_stack, make_env, backend):
    """Denied, or over the rate after RequestLimits let a large upload stream: each is answered
    (403, 429) with its body read and dropped, and its record counts the body's bytes. The
    allowed host is the stack's unreached upstream, a loopback port nothing listens on (the
    upload that passes gets 502): nothing, not even a DNS query, leaves the machine."""
    env = make_env()
    save_policy(policy_file(live_stack.state, env), Policy(allow=[UNREACHED_UPSTREAM], max_requests_per_second=1))
    result = live_stack.run(env, UPLOADS, ".py", backend=backend)
    assert result.exit_code == 0, result.stderr
    denied, *uploads = json.loads(result.stdout)
    assert denied == 403 and sorted(uploads) == [429, 429, 502]
    answered = [r for r in result.requests if r.status in (403, 429)]
    assert len(answered) == 3 and all(r.request_bytes == 3 << 20 for r in answered)
