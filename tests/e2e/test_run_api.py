"""`POST /api/platform/run` on `detour serve`: code in, the CLI's result JSON out, behind the
API key; a Node caller shows the point (callers that cannot import detour)."""

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from sandbox.runtimes import NODE_ROOT
from tests.e2e.test_cli import Server

NODE_CALLER = """
const [url, key] = process.argv.slice(2);
const answer = await fetch(`${url}/api/platform/run`, {
  method: "POST", headers: {"X-API-Key": key, "Content-Type": "application/json"},
  body: JSON.stringify({language: "bash", template: "slack_default",
                        code: "curl -s -X POST https://slack.com/api/chat.postMessage -H 'Authorization: Bearer xoxb-1' -d channel=general -d text=from-node"}),
});
const result = await answer.json();
console.log(JSON.stringify({status: answer.status, exit: result.exit_code, inserts: result.diff.inserts.length,
                            decisions: result.requests.map((r) => r.decision)}));
"""


# Posts "live", then waits, idle but for a look every 2 s, until LIVE programs have posted: none
# ends before the last has started, so all LIVE are live at once when it does. Under a cap
# (FastAPI's pool held 40), the first ones wait for the rest until their time runs out.
LIVE = 64
BARRIER = """
import json, time, urllib.request
def call(method, **args):
    request = urllib.request.Request("https://slack.com/api/" + method, data=json.dumps(args).encode(),
        headers={"Authorization": "Bearer xoxb-1", "Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(request))
call("chat.postMessage", channel="general", text="live")
while (seen := sum(m["text"] == "live" for m in call("conversations.history", channel="general", limit=500)["messages"])) < %d:
    time.sleep(2)
print(seen)
""" % LIVE


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    home = tmp_path_factory.mktemp("run-api") / "home"
    server = Server(home)
    server.start()
    try:
        yield server.platform()
    finally:
        server.stop()


def test_run_code_over_http(served):
    url, key = served
    env = requests.post(f"{url}/api/platform/environments", headers={"X-API-Key": key},
                        json={"template": "slack_default"}).json()["env_id"]
    code = ("import requests\nprint(requests.post('https://slack.com/api/chat.postMessage', headers={'Authorization': "
            "'Bearer xoxb-1'}, json={'channel': 'general', 'text': 'over http'}).json()['ok'])")
    answer = requests.post(f"{url}/api/platform/run", headers={"X-API-Key": key},
                           json={"code": code, "env": env, "limits": {"timeout_s": 30}})
    result = answer.json()
    assert answer.status_code == 200, result
    assert (result["env_id"], result["exit_code"], result["stdout"]) == (env, 0, "True\n")
    assert [r["decision"] for r in result["requests"]] == ["routed"]
    assert [row["message_text"] for row in result["diff"]["inserts"]] == ["over http"]


def test_a_node_program_calls_the_run_api(served, tmp_path):
    url, key = served
    caller = tmp_path / "caller.mjs"
    caller.write_text(NODE_CALLER)
    done = subprocess.run([str(NODE_ROOT / "bin" / "node"), str(caller), url, key], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"status": 200, "exit": 0, "inserts": 1, "decisions": ["routed"]}


@pytest.mark.parametrize("body, headers, status, detail", [
    ({"code": "print(1)"}, {}, 401, "X-API-Key"),
    ({"code": "print(1)", "language": "cobol"}, None, 422, "language"),
    ({"code": "print(1)", "env": "missing"}, None, 404, "no environment 'missing'"),
    ({"code": "print(1)", "template": "nope"}, None, 400, "unknown template"),
    ({"code": "print(1)", "limits": {"timeout_s": -1}}, None, 422, "timeout_s"),
])
def test_bad_requests_get_clear_errors(served, body, headers, status, detail):
    url, key = served
    answer = requests.post(f"{url}/api/platform/run", json=body,
                           headers={"X-API-Key": key} if headers is None else headers)
    assert answer.status_code == status
    assert detail in json.dumps(answer.json())


def test_a_misspelled_limit_is_refused_not_ignored(served):
    """`{"timeout": 1}` once ran a 5 s program to its end under the default limits."""
    url, key = served
    answer = requests.post(f"{url}/api/platform/run", headers={"X-API-Key": key},
                           json={"code": "import time\ntime.sleep(5)\nprint('ran')", "limits": {"timeout": 1}})
    assert answer.status_code == 422, answer.text
    [problem] = answer.json()["detail"]
    assert problem["loc"] == ["body", "limits"]
    assert problem["msg"].startswith("unknown key 'timeout' (did you mean 'timeout_s'?); known: cpu_s, disk_mb")


def test_more_runs_live_at_once_than_a_thread_pool_holds(served):
    """LIVE runs of one environment posted together are all live at once (FastAPI's pool of 40
    ran 128 in waves of 40)."""
    url, key = served
    env = requests.post(f"{url}/api/platform/environments", headers={"X-API-Key": key},
                        json={"template": "slack_default"}).json()["env_id"]

    def post(_: int) -> dict:
        return requests.post(f"{url}/api/platform/run", headers={"X-API-Key": key}, timeout=600,
                             json={"code": BARRIER, "env": env, "limits": {"timeout_s": 300}}).json()

    with ThreadPoolExecutor(LIVE) as callers:
        results = list(callers.map(post, range(LIVE)))
    assert [(r["exit_code"], r["killed_reason"], r["stdout"]) for r in results] == [(0, None, f"{LIVE}\n")] * LIVE
