"""An environment's clock through the proxy: two environments of the same template, frozen
clock and seed, each given the same agent, end with the same diff byte for byte, on each of the
four services; and a relative query (Linear's `-P1D`) follows the environment's time."""

import json
from datetime import UTC, datetime

import pytest

from mock_services.clock import Clock

FROZEN = Clock().set(datetime(2026, 3, 2, 9, 30, tzinfo=UTC).timestamp())
AGENTS = {
    "slack_default": """
import os, requests
requests.post("https://slack.com/api/chat.postMessage", headers={"Authorization": "Bearer " + os.environ["SLACK_TOKEN"]},
              json={"channel": "general", "text": "same every time"}).raise_for_status()
""",
    "linear_default": """
import os, requests
def ask(query, **variables):
    answer = requests.post("https://api.linear.app/graphql", headers={"Authorization": os.environ["LINEAR_API_KEY"]},
                           json={"query": query, "variables": variables})
    answer.raise_for_status()
    return answer.json()["data"]
team = ask("{ teams { nodes { id } } }")["teams"]["nodes"][0]["id"]
ask("mutation($t: String!) { issueCreate(input: {teamId: $t, title: \\"Same\\"}) { success } }", t=team)
""",
    "calendar_default": """
import requests
token = requests.post("https://oauth2.googleapis.com/token", data={"grant_type": "refresh_token", "refresh_token": "r",
                      "client_id": "i", "client_secret": "s"}).json()["access_token"]
requests.post("https://www.googleapis.com/calendar/v3/calendars/primary/events", headers={"Authorization": "Bearer " + token},
              json={"summary": "Same", "start": {"dateTime": "2026-03-03T10:00:00Z"},
                    "end": {"dateTime": "2026-03-03T11:00:00Z"}}).raise_for_status()
""",
    "box_default": """
import requests
token = requests.post("https://api.box.com/oauth2/token", data={"grant_type": "client_credentials", "client_id": "i",
                      "client_secret": "s"}).json()["access_token"]
requests.post("https://api.box.com/2.0/folders", headers={"Authorization": "Bearer " + token},
              json={"name": "Same", "parent": {"id": "0"}}).raise_for_status()
""",
}


@pytest.mark.parametrize("template", AGENTS)
def test_a_frozen_clock_and_a_seed_give_identical_diffs_for_the_same_agent(live_stack, api_client, template):
    diffs = []
    for _ in range(2):
        env = api_client.environments.create(template, clock=FROZEN, seed="run").env_id
        result = live_stack.run(env, AGENTS[template], ".py")
        assert result.exit_code == 0, result.stderr
        diffs.append(json.dumps(api_client.environments.diff(env).model_dump(), sort_keys=True))
    assert diffs[0] == diffs[1] and json.loads(diffs[0])["inserts"], diffs


RECENT = """
import json, os, requests
query = '{ issues(filter: {createdAt: {gt: "-P1D"}}) { nodes { title } } }'
answer = requests.post("https://api.linear.app/graphql", headers={"Authorization": os.environ["LINEAR_API_KEY"]},
                       json={"query": query})
print(json.dumps(sorted(n["title"] for n in answer.json()["data"]["issues"]["nodes"])))
"""


def test_a_relative_query_follows_the_environments_clock(live_stack, api_client):
    env = api_client.environments.create("linear_default", clock=FROZEN).env_id
    live_stack.run(env, AGENTS["linear_default"], ".py")  # made "now": 2026-03-02 09:30
    assert json.loads(live_stack.run(env, RECENT, ".py").stdout) == ["Same"]
    api_client.environments.clock(env, advance_s=3 * 86400)  # three days on, it is no longer recent
    assert json.loads(live_stack.run(env, RECENT, ".py").stdout) == []
