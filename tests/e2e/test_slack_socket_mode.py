"""Slack apps on Socket Mode, unmodified in a sandbox: the WebSocket that
`apps.connections.open` hands out is served through detour's proxy. A Bolt app answers a
mention a timeline's person makes in the thread, and the reply is in the diff as the app's; an envelope an
app leaves unacknowledged comes again with Slack's retry fields."""

import pytest

import detour

from detour.stack import EMBEDDED, Stack
from detour_core.paths import StatePaths
from mock_services.store import EnvironmentStore
from mock_services.timelines.model import Step
from tests.conftest import NODE_CLIENTS, LiveStack, needs_namespaces

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

NODE_BOLT_APP = """
import bolt from "@slack/bolt";

const app = new bolt.App({token: process.env.SLACK_BOT_TOKEN, appToken: process.env.SLACK_APP_TOKEN, socketMode: true});
app.event("app_mention", async ({event, say}) => {
  await say({text: "On it, from Node.", thread_ts: event.ts});
  process.exit(0);
});
await app.start();
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


def mention_at_start(text: str) -> list[Step]:
    """John's message, as soon as the app is listening (a live clock's step fires once an event
    connection is open)."""
    return [Step(id="ask", person=JOHN, do="chat.postMessage", at=0,
                 args={"channel": "#engineering", "text": text})]


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
    env_id = embedded_stack.store.create(
        "slack_bench_v2", timeline=mention_at_start(f"<@{AGENT}> the deploy failed, can you roll back?")).env_id
    result = embedded_stack.run(env_id, BOLT_APP, ".py", backend="namespace")
    assert_answered_in_thread(result, "On it: rolling back now.")
    assert any(r.host == "wss-primary.slack.com" and r.decision == "routed" for r in result.requests), \
        [(r.host, r.path) for r in result.requests]


def assert_answered_in_thread(result, text: str) -> None:
    """The run ended well, and its diff holds John's question and the app's answer in its thread."""
    assert result.exit_code == 0, result.stderr
    asked, replied = [(r["user_id"], r["message_id"], r["message_text"], r.get("parent_id"))
                      for r in result.diff.inserts if r["__table__"] == "messages"]
    assert asked[0] == JOHN and replied == (AGENT, replied[1], text, asked[1])


@needs_namespaces
def test_a_node_bolt_app_answers_a_mention_in_its_thread(live_stack, tmp_path):
    """@slack/bolt with `socketMode: true` (tests/node_clients), through the session's stack."""
    env_id = live_stack.store.create("slack_bench_v2", timeline=mention_at_start(f"<@{AGENT}> status?")).env_id
    program = tmp_path / "app.mjs"
    program.write_text(NODE_BOLT_APP)
    with detour.Client(home=live_stack.state.home, stack=live_stack.info, backend="namespace",
                       node_modules=NODE_CLIENTS) as client:
        result = client.run(program, env=env_id)
    assert_answered_in_thread(result, "On it, from Node.")


@needs_namespaces
def test_an_unacknowledged_envelope_is_delivered_again(live_stack):
    env_id = live_stack.store.create("slack_bench_v2", timeline=mention_at_start(f"<@{AGENT}> ping")).env_id
    result = live_stack.run(env_id, SILENT_FIRST, ".py", backend="namespace")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == f"1 timeout <@{AGENT}> ping"
