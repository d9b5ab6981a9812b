"""Jira's webhooks POSTed into a namespace sandbox: the agent registers one as Atlassian documents
(`POST /rest/api/3/webhook` with plain requests: the `jira` client has no webhook call), files
issues with the `jira` client, and a colleague's comment on the agent's issue (a timeline step in
answer to its jira:issue_created) reaches the agent's listener in Jira's shape; the webhook's
`project = ACME` filter keeps the OPS issue out, and each delivery is an audit record."""

import json

from mock_services.jira.build_seed import account_id
from mock_services.request_rows import request_rows
from mock_services.timelines.model import Reaction, Step
from tests.conftest import needs_namespaces

PRIYA = account_id("priya@example.com")  # a Jira user of jira_default who is not the agent

JIRA_LISTENER = """
import json, os, threading
from http.server import BaseHTTPRequestHandler, HTTPServer
import requests
from jira import JIRA

URL, AUTH, got = os.environ["JIRA_URL"], (os.environ["JIRA_EMAIL"], os.environ["JIRA_API_TOKEN"]), []

class Hooks(BaseHTTPRequestHandler):
    def do_POST(self):
        payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()
        got.append([payload["webhookEvent"], payload["issue"]["key"], payload["user"]["emailAddress"],
                    (payload.get("comment") or {}).get("body"), bool(self.headers["X-Atlassian-Webhook-Identifier"])])
        if payload["webhookEvent"] == "comment_created":
            print(json.dumps(got), flush=True)
            os._exit(0)

server = HTTPServer(("127.0.0.1", 8000), Hooks)
threading.Thread(target=server.serve_forever, daemon=True).start()
requests.post(URL + "/rest/api/3/webhook", auth=AUTH, json={"url": "http://localhost:8000/jira", "webhooks": [
    {"jqlFilter": "project = ACME", "events": ["jira:issue_created", "comment_created"]}]}).raise_for_status()
jira = JIRA(URL, basic_auth=AUTH)
jira.create_issue(project="ACME", summary="The nightly deploy failed", issuetype={"name": "Bug"})
jira.create_issue(project="OPS", summary="Rotate the pager", issuetype={"name": "Task"})
threading.Event().wait()
"""


@needs_namespaces
def test_a_colleagues_comment_on_the_agents_issue_reaches_its_jira_webhook(live_stack):
    env_id = live_stack.store.create("jira_default", timeline=[Step(
        person=PRIYA, service="jira", do="POST /rest/api/3/issue/{event.issue.key}/comment",
        when=Reaction(event="jira:issue_created"), args={"body": "I saw it fail too."})]).env_id
    agent = live_stack.store.credentials(env_id).variables["JIRA_EMAIL"]
    result = live_stack.run(env_id, JIRA_LISTENER, ".py", backend="namespace")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == [["jira:issue_created", "ACME-4", agent, None, True],
                                         ["comment_created", "ACME-4", "priya@example.com", "I saw it fail too.", True]]
    delivered = sorted((r["delivery"]["event"], r["delivery"]["attempt"], r["status"])
                       for r in request_rows(live_stack.state, env_id) if r["delivery"])
    assert delivered == [("comment_created", 0, 200), ("jira:issue_created", 0, 200)]
