"""The events engine renders an event only when someone takes it: a write in an environment
with no subscriber (no Socket Mode app, no Request URL, no hook or endpoint, no timeline step
waiting) never calls a payload renderer; once an app listens, the same write reaches it. A
Stripe endpoint gets each change as Stripe's event once (an invoice paid, not again at a later
edit), signed under the secret its creation answered."""

import base64
import hashlib
import hmac
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient

from detour.apps.server import create_app
from mock_services.clock import Clock, moved
from mock_services.events import outbox, rules, webhooks
from mock_services.slack.events import queue
from mock_services.stripe import events as stripe_events
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

    def counting(rule, state, row, before=None):
        rendered.append(rule.event)
        return real_render(rule, state, row, before)
    monkeypatch.setattr(rules, "render", counting)

    posted = slack("chat.postMessage", slack.tokens[JOHN], channel=ENGINEERING, text=f"<@{AGENT}> hello?")
    assert posted["ok"] and rendered == []

    assert slack("apps.connections.open", slack.variables["SLACK_APP_TOKEN"])["ok"]
    assert slack("chat.postMessage", slack.tokens[JOHN], channel=ENGINEERING, text=f"<@{AGENT}> now?")["ok"]
    assert rendered == ["message", "app_mention"]
    with slack.store.open(slack.env) as state:
        waiting = [d.body["payload"]["event"]["type"] for d in outbox.waiting(state, queue(AGENT))]
    assert waiting == ["message", "app_mention"]


def test_a_stripe_endpoint_gets_each_change_once_signed_with_the_secret_answered_at_its_creation(state):
    client = TestClient(create_app(state), raise_server_exceptions=False)
    store = EnvironmentStore(state)
    env = store.create("stripe_default").env_id
    auth = {"Authorization": "Bearer " + store.credentials(env).variables["STRIPE_API_KEY"]}
    base = f"/api/env/{env}/services/stripe/v1"

    def post(path, **data):
        answer = client.post(base + path, data=data, headers=auth)
        assert answer.status_code == 200, answer.text
        return answer.json()
    endpoint = post("/webhook_endpoints", url="http://localhost:4242/hooks", **{"enabled_events[]": ["*"]})
    assert endpoint["secret"].startswith("whsec_") and endpoint["status"] == "enabled"
    assert "secret" not in client.get(f"{base}/webhook_endpoints/{endpoint['id']}", headers=auth).json()
    invoice = post("/invoices", customer=post("/customers", email="pat@acme.test")["id"])
    post(f"/invoices/{invoice['id']}/finalize")
    post(f"/invoices/{invoice['id']}/pay")
    post(f"/invoices/{invoice['id']}", **{"metadata[order]": "42"})  # an edit of a paid invoice: not paid again
    post(f"/webhook_endpoints/{endpoint['id']}", disabled="true")
    post("/customers", email="sam@acme.test")  # the endpoint is disabled: not sent

    with store.open(env) as env_state:
        sent = outbox.waiting(env_state, stripe_events.queue(endpoint["id"]))
        payload = sent[5].body["payload"]
        body, headers, _ = stripe_events.signed(env_state, endpoint["id"], payload, 0)
    assert [d.body["payload"]["type"] for d in sent] == [
        "customer.created", "invoice.created", "invoice.updated", "invoice.finalized", "invoice.updated",
        "invoice.paid", "invoice.payment_succeeded", "invoice.updated"]
    assert payload["object"] == "event" and payload["data"]["object"]["status"] == "paid"
    timestamp, signature = (part.split("=", 1)[1] for part in headers["Stripe-Signature"].split(","))
    assert signature == hmac.new(endpoint["secret"].encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()


def test_a_held_back_attempt_goes_later_as_the_same_attempt_and_a_failed_one_waits_for_the_retry(state):
    """What the deliverer's faults do to the outbox (webhooks.deliver_due): `latency` puts the
    attempt back for later, unchanged; a dropped one waits for the vendor's next retry."""
    client = TestClient(create_app(state), raise_server_exceptions=False)
    store = EnvironmentStore(state)
    env = store.create("stripe_default", clock=Clock().set(datetime(2026, 3, 2, 9, 30, tzinfo=UTC).timestamp())).env_id
    auth = {"Authorization": "Bearer " + store.credentials(env).variables["STRIPE_API_KEY"]}
    base = f"/api/env/{env}/services/stripe/v1"
    endpoint = client.post(base + "/webhook_endpoints", data={"url": "http://localhost:4242/hooks",
                                                              "enabled_events[]": ["customer.created"]},
                           headers=auth).json()
    client.post(base + "/customers", data={"email": "pat@acme.test"}, headers=auth)
    sent = []

    def send(outcome):
        def record(env_id, request):
            sent.append((request.event, request.delivery.attempt))
            return outcome
        return record

    def waiting():
        with store.open(env) as env_state:
            return [(d.attempt, d.due) for d in outbox.waiting(env_state, stripe_events.queue(endpoint["id"]))]
    start = store.get(env).clock.now()
    assert webhooks.deliver_due(store, env, send(webhooks.Outcome(False, later_s=5))) == 0
    assert waiting() == [(0, start + 5)]
    assert webhooks.deliver_due(store, env, send(webhooks.Outcome(True))) == 0  # not due yet
    store.set_clock(env, moved(store.get(env).clock, advance_s=5))
    assert webhooks.deliver_due(store, env, send(webhooks.Outcome(False))) == 0  # dropped: Stripe's retry in 1 h
    assert waiting() == [(1, start + 5 + stripe_events.RETRIES[0])]
    assert sent == [("customer.created", 0), ("customer.created", 0)]


def test_a_jira_webhook_gets_its_projects_issue_and_comment_changes_in_jiras_shape(state):
    client = TestClient(create_app(state), raise_server_exceptions=False)
    store = EnvironmentStore(state)
    env = store.create("jira_default").env_id
    base = f"/api/env/{env}/services/jira/rest/api/3"
    priya = {"Authorization": "Basic " + base64.b64encode(b"priya@example.com:token").decode()}

    def call(method, path, body=None, headers=None):
        answer = client.request(method, base + path, json=body, headers=headers or {})
        assert answer.status_code < 300, answer.text
        return answer.json() if answer.content else None
    registered = call("POST", "/webhook", {"url": "http://localhost:8000/jira", "webhooks": [
        {"jqlFilter": "project = ACME", "events": ["jira:issue_created", "jira:issue_updated", "comment_created"]},
        {"jqlFilter": "watchCount > 3", "events": ["jira:issue_created"]}]})["webhookRegistrationResult"]
    hook = registered[0]["createdWebhookId"]
    assert isinstance(hook, int) and registered[1]["errors"]
    assert [w["id"] for w in call("GET", "/webhook")["values"]] == [hook]
    issue = call("POST", "/issue", {"fields": {"project": {"key": "ACME"}, "summary": "Flaky deploy",
                                                "issuetype": {"name": "Bug"}}})
    call("POST", "/issue", {"fields": {"project": {"key": "OPS"}, "summary": "Not ours", "issuetype": {"name": "Task"}}})
    call("POST", f"/issue/{issue['key']}/transitions", {"transition": {"id": "21"}})
    call("POST", f"/issue/{issue['key']}/comment", {"body": "On it"}, priya)
    call("DELETE", "/webhook", {"webhookIds": [hook]})
    call("POST", "/issue", {"fields": {"project": {"key": "ACME"}, "summary": "After", "issuetype": {"name": "Task"}}})

    with store.open(env) as env_state:
        sent = [d.body["payload"] for d in outbox.waiting(env_state, f"jira.webhook:{hook}")]
    assert [p["webhookEvent"] for p in sent] == ["jira:issue_created", "jira:issue_updated", "comment_created"]
    assert all(p["matchedWebhookIds"] == [hook] and p["issue"]["key"] == issue["key"] for p in sent)
    status = [i for i in sent[1]["changelog"]["items"] if i["field"] == "status"]
    assert status[0]["fromString"] == "To Do" and status[0]["toString"] == "In Progress"
    assert sent[2]["comment"]["author"]["emailAddress"] == "priya@example.com"
    assert sent[2]["user"]["emailAddress"] == "priya@example.com"
