"""A body over its environment's limit is refused from its headers (413), never buffered,
and recorded with its declared size; the environment goes on working."""

import json

import pytest

from detour_core.policy import Policy, policy_file, save_policy
from tests.conftest import BACKENDS

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


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_body_over_the_limit_is_refused_from_its_headers(live_stack, make_env, backend):
    env = make_env()
    save_policy(policy_file(live_stack.state, env), Policy(max_request_bytes=1000))
    result = live_stack.run(env, AGENT, ".py", backend=backend)
    assert result.exit_code == 0, result.stderr
    huge, small, normal = json.loads(result.stdout)
    assert huge in ([413, "request_too_large"], ["closed", "WriteError"], ["closed", "RemoteProtocolError"])
    assert small == [413, "request_too_large"] and normal == [200, True]
    refused = [(r.decision, r.status, r.request_bytes, r.path) for r in result.requests if r.status == 413]
    assert refused == [("denied", 413, 400 * 1024 * 1024, "/api/chat.postMessage"),
                       ("denied", 413, 2000, "/api/chat.postMessage")]
    assert all("over the environment's limit of 1000" in r.reason for r in result.requests if r.status == 413)
    assert [row["message_text"] for row in result.diff.inserts] == ["still here"]
