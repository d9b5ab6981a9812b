"""An environment's clock through the proxy: two environments of the same template, frozen
clock and seed, each given the same agent, end with the same diff byte for byte, on each of the
four services; a relative query (Linear's `-P1D`) follows the environment's time; and the
sandbox's own clock reads it where detour's certificates are valid then."""

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from mock_services.clock import Clock
from tests.conftest import BACKENDS

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


DATE = """
import datetime, requests, time
print(datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"))
time.sleep(0.01)  # timers still run (the monotonic clock stays real)
print(requests.post("https://slack.com/api/api.test", timeout=10).status_code)  # TLS still trusts the proxy
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_sandbox_reads_the_environments_time_where_its_certificates_allow(live_stack, api_client, backend):
    ahead = datetime.now(UTC).replace(second=0, microsecond=0) + timedelta(days=30, hours=5)
    env = api_client.environments.create("slack_default", clock=Clock().set(ahead.timestamp())).env_id
    result = live_stack.run(env, DATE, ".py", backend=backend)
    assert result.stdout.split() == [*ahead.strftime("%Y-%m-%d %H:%M").split(), "200"], result.stderr
    past = api_client.environments.create("slack_default", clock=FROZEN).env_id  # 2026-03-02: before the CA
    result = live_stack.run(past, DATE, ".py", backend=backend)
    assert result.stdout.split()[-1] == "200" and result.stdout.split()[0] != "2026-03-02"
    assert [w for w in result.warnings if "the sandbox keeps the real time" in w], result.warnings
    assert not list(Path("/dev/shm").glob("*faketime*"))  # libfaketime's files stayed in the sandbox


QUICK_ADD = """
import json
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
cal = build("calendar", "v3", credentials=Credentials("token"))
made = cal.events().quickAdd(calendarId="primary", text="Standup tomorrow 10am").execute()
print(json.dumps(made["start"]))
"""


def test_calendars_quick_add_reads_tomorrow_from_the_environments_clock(live_stack, api_client):
    """google-api-python-client, unmodified: "tomorrow" is the day after the environment's today."""
    env = api_client.environments.create("calendar_default", clock=FROZEN).env_id  # 2026-03-02 09:30 UTC
    result = live_stack.run(env, QUICK_ADD, ".py")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["dateTime"].startswith("2026-03-03T10:00")
