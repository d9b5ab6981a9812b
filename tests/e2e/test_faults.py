"""Faults on demand, through the proxy with the official clients: an agent that retries on 429
gets every message through a 30% rate-limit fault and one that does not, fails; a lost answer
leaves the write done; a dropped request leaves nothing; latency, hangs, body and GraphQL
operation matches; every injected fault is named in its record."""

import json
import os
import time
from pathlib import Path

import pytest

from detour_core.faults import Fault
from tests.e2e.test_cli import detour, home  # noqa: F401 - the fixture

POSTS = """
import sys
from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler
client = WebClient(token="xoxb-1")
if "RETRY" == "yes":
    client.retry_handlers.append(RateLimitErrorRetryHandler(max_retry_count=10))
for n in range(10):
    client.chat_postMessage(channel="general", text=f"post {n}")
print("all sent")
"""


def posted(api_client, env: str) -> list[str]:
    return [r["message_text"] for r in api_client.environments.diff(env).inserts if r["__table__"] == "messages"]


@pytest.mark.parametrize("retries", ["yes", "no"])
def test_an_agent_that_retries_on_429_gets_through_a_30_percent_rate_limit_and_one_that_does_not_fails(
        live_stack, api_client, retries):
    env = live_stack.env()
    api_client.environments.faults(env, [Fault(kind="rate_limited", match="POST slack.com/api/chat.postMessage",
                                               probability=0.3, seed=1)])
    result = live_stack.run(env, POSTS.replace('"RETRY"', f'"{retries}"'), ".py")
    hit = [r for r in result.requests if r.fault]
    assert hit and all(r.status == 429 and r.fault == "fault 1: rate_limited POST slack.com/api/chat.postMessage"
                       for r in hit)
    if retries == "yes":
        assert result.exit_code == 0 and posted(api_client, env) == [f"post {n}" for n in range(10)], result.stderr
    else:
        assert result.exit_code == 1 and "ratelimited" in result.stderr and len(posted(api_client, env)) < 10


KINDS = """
import json, requests, time
out = {}
def post(text, **options):
    try:
        answer = requests.post("https://slack.com/api/chat.postMessage", headers={"Authorization": "Bearer xoxb-1"},
                               json={"channel": "general", "text": text}, **options)
        return answer.status_code
    except requests.exceptions.ReadTimeout:
        return "ReadTimeout"
    except requests.exceptions.ConnectionError:  # the connection closed without an answer
        return "ConnectionError"
for text in ("lost", "dropped", "slow", "error"):
    started = time.monotonic()
    out[text] = [post(text, timeout=10), round(time.monotonic() - started, 2)]
out["hang"] = [post("hang", timeout=1)]
print(json.dumps(out))
"""


def test_each_kind_of_fault_does_what_it_says_and_is_recorded(live_stack, api_client):
    env = live_stack.env()
    match = "POST slack.com/api/chat.postMessage"
    api_client.environments.faults(env, [
        Fault(kind="lost_answer", match=match, body={"text": "lost"}),
        Fault(kind="drop", match=match, body={"text": "dropped"}),
        Fault(kind="latency", match=match, body={"text": "slow"}, latency_ms=(400, 600)),
        Fault(kind="error", match=match, body={"text": "error"}, status=503),
        Fault(kind="hang", match=match, body={"text": "hang"})])
    result = live_stack.run(env, KINDS, ".py")
    out = json.loads(result.stdout)
    assert out["lost"][0] == out["dropped"][0] == "ConnectionError" and out["hang"] == ["ReadTimeout"], out
    assert out["slow"][0] == 200 and out["slow"][1] >= 0.4 and out["error"][0] == 503
    assert posted(api_client, env) == ["lost", "slow"]  # the lost answer's write was done; the dropped never served
    time.sleep(0.5)  # the hung request is given up by the client; its record follows
    records = {r.fault.split(":")[0]: r for r in api_client_records(live_stack, env) if r.fault}
    assert sorted(records) == ["fault 1", "fault 2", "fault 3", "fault 4", "fault 5"]
    assert records["fault 4"].status == 503


def api_client_records(live_stack, env: str):
    from detour_core.audit import AuditLog
    return AuditLog(live_stack.state.audit_dir).read(env, (0, 0))[0]


LINEAR = """
import json, requests
def ask(name):
    answer = requests.post("https://api.linear.app/graphql", headers={"Authorization": "lin_api_x"},
                           json={"query": f"query {name} {{ viewer {{ id }} }}", "operationName": name})
    return [answer.status_code, answer.json()]
print(json.dumps({"Viewer": ask("Viewer"), "Other": ask("Other")}))
"""


def test_a_graphql_operation_is_hit_by_name_in_linears_own_error_shape(live_stack, api_client):
    env = live_stack.env("linear_default")
    api_client.environments.faults(env, [Fault(kind="rate_limited", match="* api.linear.app/graphql",
                                               operation="Viewer")])
    out = json.loads(live_stack.run(env, LINEAR, ".py").stdout)
    status, body = out["Viewer"]
    assert status == 429 and body["errors"][0]["extensions"]["type"] == "ratelimited"
    assert out["Other"][0] == 200 and "viewer" in out["Other"][1]["data"]


def test_env_fault_on_the_command_line_adds_lists_and_clears(home):  # noqa: F811
    env = json.loads(detour(home, "env", "create", "--json").stdout)["env_id"]
    added = detour(home, "env", "fault", env, "error POST slack.com/api/chat.postMessage", "--status", "502",
                   "--times", "2").stdout
    assert added.strip() == "fault 1: error POST slack.com/api/chat.postMessage  status=502  times=2"
    bad = detour(home, "env", "fault", env, "explode POST slack.com/x", check=False)
    assert bad.returncode != 0 and "kind" in bad.stderr
    assert detour(home, "env", "fault", env).stdout.count("fault ") == 1  # nothing lost to the bad one
    assert detour(home, "env", "fault", env, "--clear").stdout == ""


ABSOLUTE_FORM = """
curl -s --http1.1 -H "Authorization: Bearer xoxb-1" -d channel=general -d text=absolute \\
    --request-target https://slack.com/api/chat.postMessage https://slack.com/api/chat.postMessage
"""


def test_a_request_in_absolute_form_inside_the_tunnel_reaches_the_replica(live_stack, api_client):
    """As urllib sends a request it retries (slack_sdk's retry handlers): it used to get a 404."""
    env = live_stack.env()
    result = live_stack.run(env, ABSOLUTE_FORM, ".sh")
    assert json.loads(result.stdout)["ok"] is True and posted(api_client, env) == ["absolute"], result.stdout


def test_a_templates_seeded_faults_give_the_same_diff_byte_for_byte(live_stack, api_client):
    """Two environments of a template that carries its time, seed and a 50% fault: the same agent
    makes the same rows in both, ids and times included (the evaluation guide's promise)."""
    from mock_services.templates import save_template

    seed = json.loads((Path(__file__).parents[2] / "mock_services/slack/templates/slack_default.json").read_text())
    name = f"lesson_{os.urandom(3).hex()}"
    save_template(live_stack.state, name, {**seed, "_detour": {
        "now": "2026-03-02T09:30:00Z", "seed": "lesson", "faults": [
            {"kind": "error", "match": "POST slack.com/api/chat.postMessage", "probability": 0.5, "seed": 3}]}})
    agent = POSTS.replace('"RETRY"', '"no"').replace("client.chat_postMessage(", "try_post(") \
        .replace("for n in range", "def try_post(**kw):\n    try:\n        client.chat_postMessage(**kw)\n"
                                   "    except Exception:\n        pass\nfor n in range")
    diffs = []
    for _ in range(2):
        env = api_client.environments.create(name).env_id
        result = live_stack.run(env, agent, ".py")
        assert result.exit_code == 0 and any(r.fault for r in result.requests), result.stderr
        diffs.append(api_client.environments.diff(env).model_dump_json())
    assert diffs[0] == diffs[1] and 0 < len(json.loads(diffs[0])["inserts"]) < 10
