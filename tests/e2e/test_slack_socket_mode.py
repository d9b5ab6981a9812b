"""Slack apps on Socket Mode, unmodified in a sandbox: the WebSocket that
`apps.connections.open` hands out is served through detour's proxy. A Bolt app answers a
colleague's mention in the thread, and the reply is in the diff as the app's; an envelope an
app leaves unacknowledged comes again with Slack's retry fields."""

import threading
import time

import pytest

from detour.stack import EMBEDDED, Stack
from detour_core.paths import StatePaths
from mock_services.slack import catalogue
from mock_services.slack.events import APPS_KEY
from mock_services.slack.router import dispatch
from mock_services.store import EnvironmentStore
from tests.conftest import LiveStack, needs_namespaces

ENGINEERING, AGENT, JOHN = "C03IJKL9012", "U01AGENBOT9", "U02JOHNDOE1"

BOLT_APP = """
import os
from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler

app = App(token=os.environ["SLACK_BOT_TOKEN"])

@app.event("app_mention")
def answer(event, say):
    say(text="On it: rolling back now.", thread_ts=event["ts"])
    os._exit(0)

SocketModeHandler(app, os.environ["SLACK_APP_TOKEN"]).start()
"""

SILENT_FIRST = """
import os, threading
from slack_sdk import WebClient
from slack_sdk.socket_mode import SocketModeClient
from slack_sdk.socket_mode.response import SocketModeResponse

done = threading.Event()

def listener(client, request):
    mention = request.payload.get("event", {}).get("type") == "app_mention"
    if mention and request.retry_attempt == 0:
        return  # not acknowledged: Slack sends it again
    client.send_socket_mode_response(SocketModeResponse(envelope_id=request.envelope_id))
    if mention:
        print(request.retry_attempt, request.retry_reason, request.payload["event"]["text"])
        done.set()

client = SocketModeClient(app_token=os.environ["SLACK_APP_TOKEN"], web_client=WebClient(token=os.environ["SLACK_BOT_TOKEN"]))
client.socket_mode_request_listeners.append(listener)
client.connect()
done.wait()
"""


def post_as_john(store, env_id: str, text: str) -> str:
    """John writes in #engineering through the replica, with his own token."""
    token = store.credentials(env_id).tokens[JOHN]
    return dispatch(store, env_id, catalogue.lookup("chat.postMessage"), token,
                    {"channel": ENGINEERING, "text": text})["ts"]


def run_app_while(live_stack, env_id: str, program: str, action) -> object:
    """Runs the app in a namespace sandbox; once it has opened Socket Mode, `action` happens."""
    outcome = {}
    runner = threading.Thread(target=lambda: outcome.update(
        result=live_stack.run(env_id, program, ".py", backend="namespace")))
    runner.start()
    try:
        deadline = time.monotonic() + 60
        while runner.is_alive() and time.monotonic() < deadline:
            with live_stack.store.open(env_id) as state:
                if AGENT in (state.meta(APPS_KEY) or []):
                    break
            time.sleep(0.05)
        action()
    finally:
        runner.join(120)
    assert not runner.is_alive(), "the app did not end"
    return outcome["result"]


@pytest.fixture(scope="module")
def embedded_stack(tmp_path_factory):
    """The stack `detour run` starts for itself: the proxy alone, answering from the replica
    app in its own process (the session's stack hands WebSockets to its replica server)."""
    root = tmp_path_factory.mktemp("embedded")
    state = StatePaths(root / "home").ensure()
    (root / "scripts").mkdir()
    with Stack(state, parts=EMBEDDED) as info:
        yield LiveStack(state, info, EnvironmentStore(state), root / "scripts")


@needs_namespaces
def test_a_bolt_app_answers_a_mention_in_its_thread(embedded_stack):
    live_stack = embedded_stack
    env_id = live_stack.store.create("slack_bench_v2").env_id
    asked = {}
    result = run_app_while(live_stack, env_id, BOLT_APP, lambda: asked.update(
        ts=post_as_john(live_stack.store, env_id, f"<@{AGENT}> the deploy failed, can you roll back?")))
    assert result.exit_code == 0, result.stderr
    replies = [row for row in result.diff.inserts if row["__table__"] == "messages" and row["user_id"] == AGENT]
    assert [(r["message_text"], r["parent_id"]) for r in replies] == [("On it: rolling back now.", asked["ts"])]
    assert any(r.host == "wss-primary.slack.com" and r.decision == "routed" for r in result.requests), \
        [(r.host, r.path) for r in result.requests]


@needs_namespaces
def test_an_unacknowledged_envelope_is_delivered_again(live_stack):
    env_id = live_stack.store.create("slack_bench_v2").env_id
    result = run_app_while(live_stack, env_id, SILENT_FIRST,
                           lambda: post_as_john(live_stack.store, env_id, f"<@{AGENT}> ping"))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == f"1 timeout <@{AGENT}> ping"
