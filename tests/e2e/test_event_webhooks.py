"""Events POSTed into the sandbox, to listeners on its own loopback (it has no inbound route),
each checked in the sandbox with the vendor's own helper or documented check: Slack's
url_verification and a colleague's mention from a timeline (slack_sdk's SignatureVerifier);
a GitHub hook's ping, push and merged pull request (hmac; @octokit/webhooks' verify) and a
colleague's issue from a timeline; a Stripe endpoint's customer and paid invoice (stripe-python's
construct_event; stripe-node's constructEvent in Express); a Linear webhook (@linear/sdk's
LinearWebhookClient) and a colleague's comment in answer to the agent's issue; a Calendar watch
channel's sync and exists (google-api-python-client); and delivery faults (a lost answer, a
dropped attempt) followed by the vendor's retries, each attempt in the audit."""

import json

import detour
from detour_core.faults import Fault
from mock_services.request_rows import request_rows
from mock_services.timelines.model import Reaction, Step
from tests.conftest import NODE_CLIENTS, needs_namespaces

AGENT, JOHN = "U01AGENBOT9", "U02JOHNDOE1"


def run_node(live_stack, tmp_path, code: str, template: str, **made):
    """A Node program in a namespace sandbox of a new environment, with tests/node_clients."""
    env_id = live_stack.store.create(template, **made).env_id
    program = tmp_path / "listener.mjs"
    program.write_text(code)
    with detour.Client(home=live_stack.state.home, stack=live_stack.info, backend="namespace",
                       node_modules=NODE_CLIENTS) as client:
        return client.run(program, env=env_id)

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


NODE_HOOK_LISTENER = """
import http from "node:http";
import {Webhooks} from "@octokit/webhooks";

const secret = "it-is-a-secret", got = [];
const webhooks = new Webhooks({secret});
const api = (method, path, body) => fetch("https://api.github.com" + path, {method, body: JSON.stringify(body),
  headers: {authorization: "token " + process.env.GITHUB_TOKEN, "content-type": "application/json"}});

http.createServer(async (request, response) => {
  let body = "";
  for await (const chunk of request) body += chunk;
  const good = await webhooks.verify(body, request.headers["x-hub-signature-256"]);
  response.writeHead(good ? 200 : 401).end();
  const event = request.headers["x-github-event"], payload = JSON.parse(body);
  got.push([event, good]);
  if (event === "pull_request" && payload.pull_request.merged) {
    console.log(JSON.stringify(got));
    process.exit(0);
  }
}).listen(3000, "127.0.0.1", async () => {
  const made = await api("POST", "/repos/acme/api/hooks", {events: ["push", "pull_request"],
    config: {url: "http://localhost:3000/hooks", content_type: "json", secret}});
  if (!made.ok) throw new Error("hook: " + made.status);
  const merged = await api("PUT", "/repos/acme/api/pulls/4/merge", {merge_method: "merge"});
  if (!merged.ok) throw new Error("merge: " + merged.status);
});
"""


@needs_namespaces
def test_a_node_listener_verifies_them_with_octokits_webhooks(live_stack, tmp_path):
    """Node's own http server and @octokit/webhooks' verify (tests/node_clients)."""
    result = run_node(live_stack, tmp_path, NODE_HOOK_LISTENER, "github_default", acting_user="2")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == [["ping", True], ["push", True], ["pull_request", True]]


STRIPE_LISTENER = """
import json, os, threading
from http.server import BaseHTTPRequestHandler, HTTPServer
import stripe

stripe.api_key, got = os.environ["STRIPE_API_KEY"], []
endpoint = stripe.WebhookEndpoint.create(url="http://localhost:4242/webhook",
                                         enabled_events=["customer.created", "invoice.paid"])

class Webhook(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        try:
            event = stripe.Webhook.construct_event(body, self.headers["Stripe-Signature"], endpoint.secret)
        except stripe.SignatureVerificationError:
            event = None
        self.send_response(200 if event else 400)
        self.send_header("Content-Length", "0")
        self.end_headers()
        got.append([event.type, event.data.object.object] if event else "bad signature")
        if event and event.type == "invoice.paid":
            print(json.dumps(got), flush=True)
            os._exit(0)

server = HTTPServer(("127.0.0.1", 4242), Webhook)
threading.Thread(target=server.serve_forever, daemon=True).start()
customer = stripe.Customer.create(email="pat@acme.test")
invoice = stripe.Invoice.create(customer=customer.id)
stripe.Invoice.finalize_invoice(invoice.id)
stripe.Invoice.pay(invoice.id)
threading.Event().wait()
"""


@needs_namespaces
def test_a_stripe_endpoint_gets_the_paid_invoice_and_construct_event_verifies_it(live_stack):
    """stripe-python's construct_event checks each Stripe-Signature; only the types the endpoint
    enabled arrive (not invoice.created or .finalized)."""
    env_id = live_stack.store.create("stripe_default").env_id
    result = live_stack.run(env_id, STRIPE_LISTENER, ".py", backend="namespace")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == [["customer.created", "customer"], ["invoice.paid", "invoice"]]


STRIPE_EXPRESS = """
import express from "express";
import Stripe from "stripe";

const stripe = new Stripe(process.env.STRIPE_API_KEY), got = [];
const endpoint = await stripe.webhookEndpoints.create({url: "http://localhost:4242/webhook", enabled_events: ["*"]});
const app = express();
app.post("/webhook", express.raw({type: "application/json"}), (request, response) => {
  let event;
  try {
    event = stripe.webhooks.constructEvent(request.body, request.headers["stripe-signature"], endpoint.secret);
  } catch (error) {
    got.push("bad signature");
    return response.status(400).end();
  }
  response.json({received: true});
  got.push(event.type);
  if (event.type === "invoice.paid") {
    console.log(JSON.stringify(got));
    process.exit(0);
  }
});
app.listen(4242, "127.0.0.1", async () => {
  const customer = await stripe.customers.create({email: "pat@acme.test"});
  const invoice = await stripe.invoices.create({customer: customer.id});
  await stripe.invoices.finalizeInvoice(invoice.id);
  await stripe.invoices.pay(invoice.id);
});
"""


@needs_namespaces
def test_an_express_listener_verifies_them_with_stripe_nodes_construct_event(live_stack, tmp_path):
    """Every type ("*"), in the order of the writes; invoice.paid after the invoice's own updates."""
    result = run_node(live_stack, tmp_path, STRIPE_EXPRESS, "stripe_default")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == ["customer.created", "invoice.created", "invoice.updated",
                                         "invoice.finalized", "invoice.updated", "invoice.paid"]


LINEAR_LISTENER = """
import http from "node:http";
import {LinearClient} from "@linear/sdk";
import {LinearWebhookClient} from "@linear/sdk/webhooks";

const linear = new LinearClient({apiKey: process.env.LINEAR_API_KEY}), got = [];
const team = (await linear.teams()).nodes[0];
const made = await linear.createWebhook({url: "http://localhost:3000/linear", resourceTypes: ["Issue", "Comment"],
                                         teamId: team.id});
const webhooks = new LinearWebhookClient((await made.webhook).secret);

http.createServer(async (request, response) => {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  let payload;
  try {
    payload = webhooks.parseData(Buffer.concat(chunks), request.headers["linear-signature"]);
  } catch (error) {
    got.push(String(error));
    return response.writeHead(400).end();
  }
  response.writeHead(200).end();
  got.push([payload.type, payload.action, request.headers["linear-event"]]);
  if (payload.type === "Comment") {
    console.log(JSON.stringify(got));
    process.exit(0);
  }
}).listen(3000, "127.0.0.1", async () => {
  const issue = await (await linear.createIssue({teamId: team.id, title: "Hooks, please"})).issue;
  await linear.createComment({issueId: issue.id, body: "Heard you."});
});
"""


@needs_namespaces
def test_a_linear_webhook_is_verified_by_the_sdks_linear_webhook_client(live_stack, tmp_path):
    """@linear/sdk makes the webhook and the changes; its LinearWebhookClient checks each
    Linear-Signature and the signed webhookTimestamp (within a minute of the sandbox's clock)."""
    result = run_node(live_stack, tmp_path, LINEAR_LISTENER, "linear_default")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == [["Issue", "create", "Issue"], ["Comment", "create", "Comment"]]


FAULTED_LISTENER = """
import json, os, threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from slack_sdk import WebClient
from slack_sdk.signature import SignatureVerifier

verifier, got = SignatureVerifier(os.environ["SLACK_SIGNING_SECRET"]), []

class Events(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        payload = json.loads(body)
        answer = payload.get("challenge", "").encode()
        self.send_response(200 if verifier.is_valid_request(body, dict(self.headers)) else 401)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)
        got.append([payload.get("event", payload)["type"], self.headers.get("X-Slack-Retry-Num", "0")])
        if ["message", "1"] in got and ["app_mention", "0"] in got:
            print(json.dumps(sorted(got)), flush=True)
            os._exit(0)

server = HTTPServer(("127.0.0.1", 3000), Events)
threading.Thread(target=server.serve_forever, daemon=True).start()
WebClient(token=os.environ["SLACK_BOT_TOKEN"]).apps_manifest_update(
    app_id="A01AGENBOT9", manifest={"settings": {"event_subscriptions": {"request_url": "http://localhost:3000/events"}}})
threading.Event().wait()
"""


@needs_namespaces
def test_delivery_faults_bring_the_vendors_retries_and_each_attempt_is_recorded(live_stack, api_client):
    """The answer to the first url_verification is lost (Slack sends it again: the listener has it
    twice) and the first event_callback is dropped (sent again at once, X-Slack-Retry-Num 1); the
    audit has each attempt, with its event, its number, its status and the fault that hit it."""
    env_id = live_stack.store.create("slack_bench_v2", timeline=[Step(
        person=JOHN, do="chat.postMessage", at=0,
        args={"channel": "#engineering", "text": f"<@{AGENT}> still there?"})]).env_id
    api_client.environments.faults(env_id, [
        Fault(kind="lost_answer", match="POST localhost/*", body={"type": "url_verification"}, times=1),
        Fault(kind="drop", match="POST localhost/events", body={"type": "event_callback"}, times=1)])
    result = live_stack.run(env_id, FAULTED_LISTENER, ".py", backend="namespace")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == [["app_mention", "0"], ["message", "1"], ["url_verification", "0"],
                                         ["url_verification", "1"]]
    attempts = sorted((r["delivery"]["event"], r["delivery"]["attempt"], r["status"], (r["fault"] or "")[:8])
                      for r in request_rows(live_stack.state, env_id) if r["delivery"])
    assert attempts[:4] == [("app_mention", 0, 200, ""), ("message", 0, None, "fault 2:"), ("message", 1, 200, ""),
                            ("url_verification", 0, 200, "fault 1:")]
    assert attempts[4] == ("url_verification", 1, 200, "")


LINEAR_COLLEAGUE = """
import hashlib, hmac, json, os, threading
from http.server import BaseHTTPRequestHandler, HTTPServer
import requests

def linear(query, **variables):
    answer = requests.post("https://api.linear.app/graphql", json={"query": query, "variables": variables},
                           headers={"Authorization": os.environ["LINEAR_API_KEY"]})
    answer.raise_for_status()
    return answer.json()["data"]

team = linear("{ teams { nodes { id } } }")["teams"]["nodes"][0]["id"]
secret = linear("mutation($i: WebhookCreateInput!) { webhookCreate(input: $i) { webhook { secret } } }",
                i={"url": "http://localhost:3000/linear", "resourceTypes": ["Comment"], "teamId": team}
                )["webhookCreate"]["webhook"]["secret"]

class Hooks(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        good = hmac.compare_digest(hmac.new(secret.encode(), body, hashlib.sha256).hexdigest(),
                                   self.headers["Linear-Signature"])
        self.send_response(200 if good else 401)
        self.send_header("Content-Length", "0")
        self.end_headers()
        payload = json.loads(body)
        print(json.dumps([good, payload["action"], payload["actor"]["id"], payload["data"]["body"],
                          payload["data"]["issueId"] == issue]), flush=True)
        os._exit(0)

server = HTTPServer(("127.0.0.1", 3000), Hooks)
threading.Thread(target=server.serve_forever, daemon=True).start()
issue = linear("mutation($i: IssueCreateInput!) { issueCreate(input: $i) { issue { id } } }",
               i={"teamId": team, "title": "The nightly export fails"})["issueCreate"]["issue"]["id"]
threading.Event().wait()
"""
COLLEAGUE = "2dcc8dc2-ca19-475d-9882-3ba5e911e7ec"  # a Linear user of linear_default who is not the agent


@needs_namespaces
def test_a_colleague_answers_the_agents_linear_issue_and_the_webhook_brings_it(live_stack):
    """A timeline step in Linear waits for the agent's Issue event and comments on that issue as
    the colleague: the comment is theirs, and the agent's webhook gets it signed."""
    env_id = live_stack.store.create("linear_default", timeline=[Step(
        person=COLLEAGUE, service="linear", do="commentCreate", when=Reaction(event="Issue"),
        args={"input": {"issueId": "{event.data.id}", "body": "I saw it fail too."}})]).env_id
    result = live_stack.run(env_id, LINEAR_COLLEAGUE, ".py", backend="namespace")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == [True, "create", COLLEAGUE, "I saw it fail too.", True]


CALENDAR_CHANNEL = """
import json, os, threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build

got = []

class Push(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()
        got.append([self.headers["X-Goog-Resource-State"], self.headers["X-Goog-Message-Number"],
                    self.headers["X-Goog-Channel-ID"], self.headers["X-Goog-Channel-Token"],
                    self.headers["X-Goog-Resource-ID"] == channel["resourceId"]])
        if got[-1][0] == "exists":
            print(json.dumps(got), flush=True)
            os._exit(0)

server = HTTPServer(("127.0.0.1", 8080), Push)
threading.Thread(target=server.serve_forever, daemon=True).start()
cal = build("calendar", "v3", credentials=Credentials("token"))
channel = cal.events().watch(calendarId="primary", body={"id": "agent-events", "type": "web_hook", "token": "mine",
                                                         "address": "http://localhost:8080/notifications"}).execute()
cal.events().insert(calendarId="primary", body={"summary": "Standup", "start": {"dateTime": "2026-12-01T09:00:00Z"},
                                                "end": {"dateTime": "2026-12-01T09:15:00Z"}}).execute()
threading.Event().wait()
"""


@needs_namespaces
def test_a_calendar_watch_channel_gets_sync_and_then_the_change(live_stack):
    """google-api-python-client's events().watch opens the channel; Google's sync message comes
    first, then `exists` for the new event, with the channel's id, token and resource id."""
    env_id = live_stack.store.create("calendar_default").env_id
    result = live_stack.run(env_id, CALENDAR_CHANNEL, ".py", backend="namespace")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == [["sync", "1", "agent-events", "mine", True],
                                         ["exists", "2", "agent-events", "mine", True]]


GITHUB_COLLEAGUE = """
import hashlib, hmac, json, os, threading
from http.server import BaseHTTPRequestHandler, HTTPServer
import requests

SECRET = "it-is-a-secret"

class Hooks(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        good = hmac.compare_digest("sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest(),
                                   self.headers["X-Hub-Signature-256"])
        self.send_response(200 if good else 401)
        self.send_header("Content-Length", "0")
        self.end_headers()
        payload = json.loads(body)
        if self.headers["X-GitHub-Event"] == "issues":
            print(json.dumps([good, payload["action"], payload["sender"]["login"], payload["issue"]["title"]]),
                  flush=True)
            os._exit(0)

server = HTTPServer(("127.0.0.1", 3000), Hooks)
threading.Thread(target=server.serve_forever, daemon=True).start()
requests.post("https://api.github.com/repos/acme/api/hooks", headers={"Authorization": "token " + os.environ["GITHUB_TOKEN"]},
              json={"events": ["issues"], "config": {"url": "http://localhost:3000/hooks", "secret": SECRET}}
              ).raise_for_status()
threading.Event().wait()
"""


@needs_namespaces
def test_a_colleague_opens_a_github_issue_on_the_timeline_and_the_hook_brings_it(live_stack):
    """A timeline step acts in GitHub (a REST operation as a request line) as another person of
    the environment: the issue is theirs, and the agent's repository hook gets `issues` opened."""
    env_id = live_stack.store.create("github_default", acting_user="2", timeline=[Step(
        person="1", service="github", do="POST /repos/acme/api/issues", at=0,
        args={"title": "The deploy failed at 3am", "body": "Can someone look?"})]).env_id
    result = live_stack.run(env_id, GITHUB_COLLEAGUE, ".py", backend="namespace")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == [True, "opened", "ai-agent", "The deploy failed at 3am"]
