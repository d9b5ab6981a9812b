"""The events engine renders an event only when someone takes it: a write in an environment
with no subscriber (no Socket Mode app, no Request URL, no hook or endpoint, no timeline step
waiting) never calls a payload renderer; once an app listens, the same write reaches it."""

import pytest
from fastapi.testclient import TestClient

from detour.apps.server import create_app
from mock_services.events import outbox, rules
from mock_services.slack.events import queue
from mock_services.store import EnvironmentStore

ENGINEERING, AGENT, JOHN = "C03IJKL9012", "U01AGENBOT9", "U02JOHNDOE1"


@pytest.fixture
def slack(state):
    client = TestClient(create_app(state), raise_server_exceptions=False)
    store = EnvironmentStore(state)
    env = store.create("slack_bench_v2").env_id
    credentials = store.credentials(env)

    def call(method, token, **params):
        return client.post(f"/api/env/{env}/services/slack/api/{method}", data=params,
                           headers={"Authorization": f"Bearer {token}"}).json()
    call.env, call.store, call.tokens, call.variables = env, store, credentials.tokens, credentials.variables
    return call


def test_a_write_nobody_hears_renders_nothing_and_a_heard_one_is_delivered(slack, monkeypatch):
    rendered = []
    real_render = rules.render

    def counting(rule, state, row):
        rendered.append(rule.event)
        return real_render(rule, state, row)
    monkeypatch.setattr(rules, "render", counting)

    posted = slack("chat.postMessage", slack.tokens[JOHN], channel=ENGINEERING, text=f"<@{AGENT}> hello?")
    assert posted["ok"] and rendered == []

    assert slack("apps.connections.open", slack.variables["SLACK_APP_TOKEN"])["ok"]
    assert slack("chat.postMessage", slack.tokens[JOHN], channel=ENGINEERING, text=f"<@{AGENT}> now?")["ok"]
    assert rendered == ["message", "app_mention"]
    with slack.store.open(slack.env) as state:
        waiting = [d.body["payload"]["event"]["type"] for d in outbox.waiting(state, queue(AGENT))]
    assert waiting == ["message", "app_mention"]
