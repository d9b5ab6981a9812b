"""Unmodified agent code, through the real proxy, lands in its own environment's replica.

Each client posts a uniquely marked message to https://slack.com with no knowledge of
detour; the test then reads the environment's diff and the run's audit lines.
"""

import uuid

import pytest

from tests.conftest import BACKENDS

SLACK = "https://slack.com/api/chat.postMessage"

CLIENTS = {
    "requests": (".py", """
import requests
r = requests.post("{url}", headers={{"Authorization": "Bearer xoxb-1"}}, data={{"channel": "general", "text": "{mark}"}})
print(r.json()["ok"])
"""),
    "httpx": (".py", """
import httpx
r = httpx.post("{url}", headers={{"Authorization": "Bearer xoxb-1"}}, json={{"channel": "general", "text": "{mark}"}})
print(r.json()["ok"])
"""),
    "urllib": (".py", """
import json, urllib.request
req = urllib.request.Request("{url}", method="POST", data=json.dumps({{"channel": "general", "text": "{mark}"}}).encode(),
                             headers={{"Authorization": "Bearer xoxb-1", "Content-Type": "application/json"}})
print(json.load(urllib.request.urlopen(req))["ok"])
"""),
    "aiohttp": (".py", """
import asyncio, aiohttp
async def main():
    async with aiohttp.ClientSession(trust_env=True) as s:
        async with s.post("{url}", headers={{"Authorization": "Bearer xoxb-1"}}, data={{"channel": "general", "text": "{mark}"}}) as r:
            print((await r.json())["ok"])
asyncio.run(main())
"""),
    "slack_sdk": (".py", """
from slack_sdk import WebClient
print(WebClient(token="xoxb-1").chat_postMessage(channel="general", text="{mark}")["ok"])
"""),
    "curl": (".sh", """
set -e
curl -sSf -H "Authorization: Bearer xoxb-1" "{url}" -d channel=general -d text={mark} | grep -o '"ok":true'
"""),
    "wget": (".sh", """
set -e
wget -qO- --header="Authorization: Bearer xoxb-1" --post-data="channel=general&text={mark}" "{url}" | grep -o '"ok":true'
"""),
    "node-fetch": (".mjs", """
const r = await fetch("{url}", {{method: "POST", headers: {{Authorization: "Bearer xoxb-1", "Content-Type": "application/json"}},
                                 body: JSON.stringify({{channel: "general", text: "{mark}"}})}});
console.log((await r.json()).ok);
"""),
    "node-typescript": (".ts", """
interface Post {{ channel: string; text: string }}
const post: Post = {{channel: "general", text: "{mark}"}};
const r: Response = await fetch("{url}", {{method: "POST", headers: {{Authorization: "Bearer xoxb-1", "Content-Type": "application/json"}},
                                           body: JSON.stringify(post)}});
const body: {{ok: boolean}} = await r.json();
console.log(body.ok);
"""),
}


@pytest.mark.parametrize("mode", ["proxy", "rewrite"])
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("client", CLIENTS)
def test_client_reaches_its_environment_replica(live_stack, make_env, client, backend, mode):
    suffix, template = CLIENTS[client]
    mine, other = make_env(), make_env()
    mark = f"via-{client}-{uuid.uuid4().hex[:8]}"
    result = live_stack.run(mine, template.format(url=SLACK, mark=mark), suffix, backend=backend, mode=mode)
    assert result.exit_code == 0, result.stderr
    assert "true" in result.stdout.lower()
    [insert] = result.diff.inserts
    assert insert["__table__"] == "messages" and insert["message_text"] == mark
    assert insert["channel_id"] == "C01ABCD1234"
    routed = [r for r in result.requests if r.decision == "routed"]
    assert [(r.host, r.path, r.status, r.mode) for r in routed] == [
        ("slack.com", "/api/chat.postMessage", 200, "regular" if mode == "proxy" else "rewrite")]
    assert live_stack.store.diff(other).inserts == []


@pytest.mark.parametrize("backend", BACKENDS)
def test_linear_graphql_through_the_proxy(live_stack, make_env, backend):
    env = make_env("linear_default")
    code = """
import httpx
q = 'mutation($i: IssueCreateInput!) { issueCreate(input: $i) { success issue { identifier } } }'
teams = httpx.post("https://api.linear.app/graphql", headers={"Authorization": "lin_api_1"},
                   json={"query": "{ teams { nodes { id key } } }"}).json()["data"]["teams"]["nodes"]
eng = [t["id"] for t in teams if t["key"] == "ENG"][0]
r = httpx.post("https://api.linear.app/graphql", headers={"Authorization": "lin_api_1"},
               json={"query": q, "variables": {"i": {"teamId": eng, "title": "From the sandbox"}}})
print(r.json()["data"]["issueCreate"]["issue"]["identifier"])
"""
    result = live_stack.run(env, code, ".py", backend=backend)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("ENG-")
    assert [i["title"] for i in result.diff.inserts if i["__table__"] == "issues"] == ["From the sandbox"]
    assert {r.service for r in result.requests} == {"linear"}
