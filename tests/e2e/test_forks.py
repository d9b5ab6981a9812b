"""Forks from every face: the CLI, the platform API and the Python API; a fork that an agent
changes through the proxy diverges from its siblings."""

import json

from fastapi.testclient import TestClient

from detour_core.credentials import api_key
from detour.apps.server import create_app
from tests.e2e.test_cli import detour, home  # noqa: F401 - the fixture

POST = """
from slack_sdk import WebClient
WebClient(token="xoxb-1").chat_postMessage(channel="general", text="only in this fork")
"""


def test_env_fork_on_the_command_line_makes_n_environments(home):  # noqa: F811
    parent = json.loads(detour(home, "env", "create", "--template", "slack_default", "--json").stdout)["env_id"]
    forks = detour(home, "env", "fork", parent, "-n", "3").stdout.split()
    listed = [json.loads(line) for line in detour(home, "env", "list", "--json").stdout.splitlines()]
    assert len(set(forks)) == 3 and {i["env_id"]: i.get("forked_from") for i in listed} == {
        parent: None, **{f: parent for f in forks}}
    missing = detour(home, "env", "fork", "env-nope", check=False)
    assert missing.returncode != 0 and "no environment 'env-nope'" in missing.stderr


def test_the_platform_api_forks_and_says_how_many(state):
    client = TestClient(create_app(state), headers={"X-API-Key": api_key(state)})
    client.post("/api/platform/environments", json={"template": "slack_default", "env_id": "parent"})
    made = client.post("/api/platform/environments/parent/fork", json={"count": 2})
    assert made.status_code == 201 and made.json()["count"] == 2
    assert all(e["forked_from"] == "parent" for e in made.json()["data"])
    assert client.post("/api/platform/environments/parent/fork", json={"count": 0}).status_code == 422
    assert client.post("/api/platform/environments/nope/fork").status_code == 404


def test_an_agent_in_one_fork_changes_only_that_fork(live_stack, api_client):
    parent = live_stack.env()
    one, other = api_client.environments.fork(parent, 2)
    result = live_stack.run(one.env_id, POST, ".py")
    assert result.exit_code == 0, result.stderr
    texts = {e: [r.get("message_text") for r in api_client.environments.diff(e).inserts]
             for e in (parent, one.env_id, other.env_id)}
    assert texts == {parent: [], one.env_id: ["only in this fork"], other.env_id: []}
