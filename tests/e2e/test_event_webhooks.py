"""Events POSTed into the sandbox: an app with a Request URL on its own loopback (a listener in
its sandbox, which has no inbound route) gets Slack's url_verification and then a colleague's
mention from a timeline, each signed as Slack signs them (slack_sdk's SignatureVerifier checks
them in the sandbox), and answers in the thread."""

import json

from mock_services.timelines.model import Step
from tests.conftest import needs_namespaces

AGENT, JOHN = "U01AGENBOT9", "U02JOHNDOE1"

LISTENER = """
import json, os, threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from slack_sdk import WebClient
from slack_sdk.signature import SignatureVerifier

verifier = SignatureVerifier(os.environ["SLACK_SIGNING_SECRET"])
slack = WebClient(token=os.environ["SLACK_BOT_TOKEN"])

class Events(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if not verifier.is_valid_request(body, dict(self.headers)):
            self.send_response(401)
            self.end_headers()
            return
        payload = json.loads(body)
        answer = payload.get("challenge", "").encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)
        self.wfile.flush()
        event = payload.get("event", {})
        if event.get("type") == "app_mention":
            slack.chat_postMessage(channel=event["channel"], thread_ts=event["ts"], text="Heard you over HTTP.")
            os._exit(0)

server = HTTPServer(("127.0.0.1", 3000), Events)
threading.Thread(target=server.serve_forever, daemon=True).start()
slack.apps_manifest_update(app_id="A01AGENBOT9",
                           manifest={"settings": {"event_subscriptions": {"request_url": "http://localhost:3000/slack/events"}}})
threading.Event().wait()
"""


@needs_namespaces
def test_a_listener_in_the_sandbox_gets_signed_events_and_answers(live_stack):
    env_id = live_stack.store.create("slack_bench_v2", timeline=[Step(
        person=JOHN, do="chat.postMessage", at=0,
        args={"channel": "#engineering", "text": f"<@{AGENT}> are you there?"})]).env_id
    result = live_stack.run(env_id, LISTENER, ".py", backend="namespace")
    assert result.exit_code == 0, result.stderr
    asked, replied = [(r["user_id"], r["message_id"], r["message_text"], r.get("parent_id"))
                      for r in result.diff.inserts if r["__table__"] == "messages"]
    assert asked[0] == JOHN and replied == (AGENT, replied[1], "Heard you over HTTP.", asked[1])


HOOK_LISTENER = """
import hashlib, hmac, json, os, threading
from http.server import BaseHTTPRequestHandler, HTTPServer
import requests

SECRET, got = "it-is-a-secret", []
API, AUTH = "https://api.github.com", {"Authorization": "token " + os.environ["GITHUB_TOKEN"]}

class Hooks(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        signature = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
        good = hmac.compare_digest(signature, self.headers.get("X-Hub-Signature-256", ""))
        self.send_response(200 if good else 401)
        self.send_header("Content-Length", "0")
        self.end_headers()
        payload, event = json.loads(body), self.headers["X-GitHub-Event"]
        got.append([event, payload.get("ref") or payload.get("action") or "", bool(self.headers["X-GitHub-Delivery"])])
        if event == "pull_request" and payload["pull_request"]["merged"]:
            print(json.dumps(got), flush=True)
            os._exit(0)

server = HTTPServer(("127.0.0.1", 3000), Hooks)
threading.Thread(target=server.serve_forever, daemon=True).start()
requests.post(API + "/repos/acme/api/hooks", headers=AUTH, json={"events": ["push", "pull_request"], "config": {
    "url": "http://localhost:3000/hooks", "content_type": "json", "secret": SECRET}}).raise_for_status()
requests.put(API + "/repos/acme/api/pulls/4/merge", headers=AUTH, json={"merge_method": "squash"}).raise_for_status()
threading.Event().wait()
"""


@needs_namespaces
def test_a_repository_hook_gets_the_ping_the_push_and_the_merged_pull_request_signed(live_stack):
    env_id = live_stack.store.create("github_default", acting_user="2").env_id  # john: an admin of acme
    result = live_stack.run(env_id, HOOK_LISTENER, ".py", backend="namespace")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == [["ping", "", True], ["push", "refs/heads/main", True],
                                         ["pull_request", "closed", True]]
