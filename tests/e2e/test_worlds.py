"""A world end to end: one agent program works across Slack, Linear, Google Calendar, Box and GitHub of
the acme world with the acting person's issued credentials and the vendors' clients, through
the proxy (namespace and docker) and in rewrite mode; one diff holds what it did in each service,
done as that person. A host of a service the environment does not hold is denied."""

from __future__ import annotations

import json

import pytest

from tests.conftest import needs_docker, needs_namespaces

AGENT = r'''
import io, json, os, urllib.request
from slack_sdk import WebClient
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
from box_sdk_gen import BoxClient, BoxDeveloperTokenAuth
from box_sdk_gen.managers.uploads import UploadFileAttributes, UploadFileAttributesParentField

def linear(query, **variables):
    request = urllib.request.Request("https://api.linear.app/graphql",
        data=json.dumps({"query": query, "variables": variables}).encode(),
        headers={"Authorization": os.environ["LINEAR_API_KEY"], "Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(request))["data"]

issue = linear('query($id: String!) { issue(id: $id) { id identifier title assignee { email } } }', id="ENG-5")["issue"]
calendar = build("calendar", "v3", credentials=Credentials(os.environ["GOOGLE_OAUTH_ACCESS_TOKEN"]))
[meeting] = calendar.events().list(calendarId="primary", q=issue["identifier"]).execute()["items"]
box = BoxClient(auth=BoxDeveloperTokenAuth(token=os.environ["BOX_DEVELOPER_TOKEN"]))
spec = box.downloads.download_file("5500000101").read().decode()
notes = f"{issue['identifier']} notes: triage {meeting['start']['dateTime']}; spec pages carts by 50 ({'50 at a time' in spec})"
box.uploads.upload_file(UploadFileAttributes(name="eng-5-notes.md", parent=UploadFileAttributesParentField(id="5500000001")),
                        io.BytesIO(notes.encode()))
linear('mutation($id: String!, $body: String!) { commentCreate(input: {issueId: $id, body: $body}) { success } }',
       id=issue["id"], body=notes)
calendar.events().insert(calendarId="primary", body={"summary": f"{issue['identifier']} follow-up",
    "start": {"dateTime": "2025-12-01T15:00:00Z"}, "end": {"dateTime": "2025-12-01T15:30:00Z"},
    "attendees": [{"email": issue["assignee"]["email"]}]}).execute()
WebClient(token=os.environ["SLACK_TOKEN"]).chat_postMessage(channel="engineering", text=notes)
from github import Auth, Github
Github(auth=Auth.Token(os.environ["GITHUB_TOKEN"])).get_repo("acme/api").create_issue(title=f"{issue['identifier']}: page carts past 50 items", body=notes)
print(json.dumps({"assignee": issue["assignee"]["email"], "meeting": meeting["summary"], "notes": notes}))
'''

CASES = [pytest.param("namespace", "proxy", marks=needs_namespaces),
         pytest.param("docker", "proxy", marks=needs_docker),
         pytest.param("namespace", "rewrite", marks=needs_namespaces)]


@pytest.mark.parametrize("backend, mode", CASES)
def test_one_program_works_across_the_acme_world_as_its_acting_person(live_stack, backend, mode):
    env_id = live_stack.store.create("acme").env_id
    ids = live_stack.store.get(env_id).acting_users
    result = live_stack.run(env_id, AGENT, ".py", backend=backend, mode=mode)
    assert result.exit_code == 0, result.stderr[-3000:]
    said = json.loads(result.stdout)
    assert said["assignee"] == "robert@example.com" and said["meeting"] == "ENG-5 checkout triage"
    assert "2025-11-27T15:00:00" in said["notes"] and "(True)" in said["notes"]  # the spec's bytes came from Box
    made = {(r["__service__"], r["__table__"]): r for r in result.diff.inserts}
    assert made[("slack", "slack.messages")]["user_id"] == ids["slack"]
    assert made[("linear", "linear.comments")]["userId"] == ids["linear"]
    assert made[("calendar", "calendar.calendar_events")]["organizer_id"] == ids["calendar"]
    assert made[("box", "box.box_files")]["created_by_id"] == ids["box"]
    assert made[("github", "github.github_issues")]["title"].startswith("ENG-5")
    assert {r.service for r in result.requests} == {"slack", "linear", "calendar", "box", "github"}
    assert all(r.decision == "routed" for r in result.requests)


DENIED = r'''
import urllib.error, urllib.request
try:
    urllib.request.urlopen("https://api.box.com/2.0/users/me")
except urllib.error.HTTPError as e:
    print(e.code)
'''


@needs_namespaces
def test_a_host_of_a_service_the_environment_does_not_hold_is_denied(live_stack):
    env_id = live_stack.store.create(["slack_default", "linear_default"]).env_id
    result = live_stack.run(env_id, DENIED, ".py", backend="namespace")
    assert result.stdout.strip() == "403", result.stderr[-2000:]
    [record] = [r for r in result.requests if r.host == "api.box.com"]
    assert record.decision == "denied" and "it holds slack, linear" in record.reason


REFRESHING = r'''
import json
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
creds = Credentials(None, refresh_token="r", client_id="c", client_secret="s", token_uri="https://oauth2.googleapis.com/token")
print(json.dumps(build("gmail", "v1", credentials=creds).users().getProfile(userId="me").execute()["emailAddress"]))
'''


@pytest.mark.parametrize("mode", [pytest.param("proxy", marks=needs_namespaces),
                                  pytest.param("rewrite", marks=needs_namespaces)])
def test_googles_token_endpoint_answers_for_whichever_google_pack_the_environment_holds(live_stack, mode):
    """oauth2.googleapis.com/token is every Google pack's route: a Gmail environment (no
    Calendar) refreshes its credentials there, both ways."""
    env_id = live_stack.store.create("gmail_default").env_id
    result = live_stack.run(env_id, REFRESHING, ".py", backend="namespace", mode=mode)
    assert result.exit_code == 0, result.stderr[-2000:]
    assert json.loads(result.stdout) == "agent@example.com"
    assert {r.service for r in result.requests} == {"gmail"}
