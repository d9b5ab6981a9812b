"""Slack's Socket Mode on the replica app: the app-level token opens a connection, the
connection says hello, a colleague's message that mentions the app arrives as `message` and
`app_mention` envelopes in Slack's shape, an acknowledged envelope is not sent again and an
unacknowledged one is, with Slack's retry fields, once the environment's clock passes the
deadline; a ticket works once, and a connection past its lifetime is told to refresh."""

from datetime import UTC, datetime

import json
import time

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from detour.apps.server import create_app
from mock_services.clock import Clock, moved
from mock_services.events import outbox
from mock_services.slack.events import queue
from mock_services.slack.router import act
from mock_services.store import EnvironmentStore

ENGINEERING, AGENT, JOHN = "C03IJKL9012", "U01AGENBOT9", "U02JOHNDOE1"
FROZEN = Clock().set(datetime(2026, 3, 2, 9, 30, tzinfo=UTC).timestamp())


@pytest.fixture
def slack(state):
    client = TestClient(create_app(state), raise_server_exceptions=False)
    store = EnvironmentStore(state)
    env = store.create("slack_bench_v2", clock=FROZEN).env_id
    credentials = store.credentials(env)

    def call(method, token, **params):
        response = client.post(f"/api/env/{env}/services/slack/api/{method}", data=params,
                               headers={"Authorization": f"Bearer {token}"})
        return response.json()

    def advance(seconds):
        store.set_clock(env, moved(store.get(env).clock, advance_s=seconds))

    def connect():
        url = call("apps.connections.open", credentials.variables["SLACK_APP_TOKEN"])["url"]
        return client.websocket_connect(f"/api/env/{env}/services/slack/link/?{url.split('?', 1)[1]}"), url

    call.env, call.client, call.tokens, call.variables = env, client, credentials.tokens, credentials.variables
    def taken(envelope_id):
        """Until the connection's side has the acknowledgement (it reads the socket in its own
        thread; a clock moved before would bring the envelope again)."""
        while True:
            with store.open(env) as state:
                if all(d.id != envelope_id for d in outbox.waiting(state, queue(AGENT))):
                    return
            time.sleep(0.01)

    call.advance, call.connect, call.store, call.taken = advance, connect, store, taken
    return call


def test_only_the_app_level_token_opens_a_connection_and_it_opens_nothing_else(slack):
    app_token = slack.variables["SLACK_APP_TOKEN"]
    assert app_token.startswith("xapp-1-")
    opened = slack("apps.connections.open", app_token)
    assert opened["ok"] and opened["url"].startswith("wss://wss-primary.slack.com/link/?ticket="), opened
    assert slack("apps.connections.open", slack.tokens[AGENT])["error"] == "not_allowed_token_type"
    assert slack("chat.postMessage", app_token, channel=ENGINEERING, text="x")["error"] == "not_allowed_token_type"


def test_a_mention_arrives_as_envelopes_and_only_the_unacknowledged_one_comes_again(slack):
    connection, url = slack.connect()
    with connection as socket:
        hello = socket.receive_json()
        assert hello["type"] == "hello" and hello["connection_info"]["app_id"] == "A" + AGENT[1:]
        posted = slack("chat.postMessage", slack.tokens[JOHN], channel=ENGINEERING, text=f"<@{AGENT}> deploy?")
        first, second = socket.receive_json(), socket.receive_json()
        by_type = {e["payload"]["event"]["type"]: e for e in (first, second)}
        assert set(by_type) == {"message", "app_mention"}
        mention = by_type["app_mention"]
        assert (mention["type"], mention["retry_attempt"], mention["retry_reason"]) == ("events_api", 0, "")
        payload = mention["payload"]
        assert payload["type"] == "event_callback" and payload["event_id"].startswith("Ev")
        assert payload["authorizations"][0]["user_id"] == AGENT and payload["authorizations"][0]["is_bot"]
        assert payload["event"] | {"ts": posted["ts"]} == {
            "type": "app_mention", "channel": ENGINEERING, "user": JOHN, "text": f"<@{AGENT}> deploy?",
            "ts": posted["ts"], "event_ts": posted["ts"], "team": payload["team_id"]}
        assert by_type["message"]["payload"]["event"]["channel_type"] == "channel"
        socket.send_json({"envelope_id": by_type["message"]["envelope_id"]})
        slack.taken(by_type["message"]["envelope_id"])
        slack.advance(4)  # past Slack's 3 s deadline: the unacknowledged mention comes again
        again = socket.receive_json()
        assert (again["envelope_id"], again["retry_attempt"], again["retry_reason"]) == (
            mention["envelope_id"], 1, "timeout")
        socket.send_json({"envelope_id": again["envelope_id"]})
        slack.taken(again["envelope_id"])
        slack.advance(3700)  # past the connection's lifetime: it is told to refresh, and nothing comes again
        assert socket.receive_json() == {"type": "disconnect", "reason": "refresh_requested",
                                         "debug_info": {"host": "applink-detour"}}
    with pytest.raises(WebSocketDisconnect), slack.client.websocket_connect(
            f"/api/env/{slack.env}/services/slack/link/?{url.split('?', 1)[1]}"):
        pass  # a ticket works once


BUTTONS = [{"type": "actions", "block_id": "deploy", "elements": [
    {"type": "button", "action_id": "approve", "value": "v42", "text": {"type": "plain_text", "text": "Approve"}}]}]


def test_a_persons_slash_command_and_button_click_reach_the_app_as_slack_sends_them(slack):
    connection, _ = slack.connect()
    with connection as socket:
        socket.receive_json()  # hello
        asked = slack("chat.postMessage", slack.tokens[AGENT], channel=ENGINEERING, text="Deploy v42?",
                      blocks=json.dumps(BUTTONS))
        socket.send_json({"envelope_id": socket.receive_json()["envelope_id"]})  # its own message's event
        john = slack.tokens[JOHN]
        act(slack.store, slack.env, john, "slash_command", {"command": "/deploy", "text": "prod", "channel": "#engineering"})
        command = socket.receive_json()
        assert (command["type"], command["accepts_response_payload"]) == ("slash_commands", True)
        assert {k: command["payload"][k] for k in ("command", "text", "user_id", "channel_id", "api_app_id")} == {
            "command": "/deploy", "text": "prod", "user_id": JOHN, "channel_id": ENGINEERING, "api_app_id": "A" + AGENT[1:]}
        socket.send_json({"envelope_id": command["envelope_id"]})
        clicked = act(slack.store, slack.env, john, "block_actions",
                      {"channel": ENGINEERING, "message_ts": asked["ts"], "action_id": "approve"})
        assert clicked["ok"], clicked
        click = socket.receive_json()
        assert click["type"] == "interactive" and click["payload"]["type"] == "block_actions"
        action = click["payload"]["actions"][0]
        assert (action["action_id"], action["block_id"], action["value"], click["payload"]["user"]["id"]) == (
            "approve", "deploy", "v42", JOHN)
        assert click["payload"]["container"]["message_ts"] == asked["ts"]
    missing = act(slack.store, slack.env, john, "block_actions",
                  {"channel": ENGINEERING, "message_ts": asked["ts"], "action_id": "reject"})
    assert missing == {"ok": False, "error": "action_not_found"}


def test_an_edit_a_deletion_and_a_pin_arrive_as_slacks_events(slack):
    connection, _ = slack.connect()
    with connection as socket:
        socket.receive_json()  # hello

        def next_event():
            envelope = socket.receive_json()
            socket.send_json({"envelope_id": envelope["envelope_id"]})
            return envelope["payload"]["event"]
        john = slack.tokens[JOHN]
        posted = slack("chat.postMessage", john, channel=ENGINEERING, text="deploy at 5")
        assert next_event()["type"] == "message"
        slack("chat.update", john, channel=ENGINEERING, ts=posted["ts"], text="deploy at 6")
        edited = next_event()
        assert (edited["subtype"], edited["message"]["text"], edited["message"]["ts"]) == (
            "message_changed", "deploy at 6", posted["ts"])
        slack("pins.add", john, channel=ENGINEERING, timestamp=posted["ts"])
        pinned = next_event()
        assert (pinned["type"], pinned["user"], pinned["item"]["message"]["ts"]) == ("pin_added", JOHN, posted["ts"])
        slack("chat.delete", john, channel=ENGINEERING, ts=posted["ts"])
        deleted = next_event()
        assert (deleted["subtype"], deleted["deleted_ts"], deleted["channel"]) == (
            "message_deleted", posted["ts"], ENGINEERING)
