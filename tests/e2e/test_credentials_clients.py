"""Each service's official client authenticates from the run's credential variables alone, in
one sandbox run over the acme world (every service) made with `require_issued_tokens`, so a
wrong or missing variable fails: slack_sdk, Linear's GraphQL, google-api-python-client, boxsdk,
PyGithub, stripe, twilio (whose Client() reads its variables itself), hubspot-api-client, jira,
zenpy and notion-client; and a plain `git clone`, `git commit` and `git push` (no flags, no
configuration of the program's own: the sandbox's git configuration holds the helper)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ISOLATING

AGENT = r'''
import json, os, subprocess, tempfile
import httpx, stripe
from box_sdk_gen import BoxClient, BoxDeveloperTokenAuth
from github import Auth, Github
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
from hubspot import HubSpot
from jira import JIRA
from notion_client import Client as Notion
from slack_sdk import WebClient
from twilio.rest import Client as Twilio
from zenpy import Zenpy

env = os.environ
who = {}
who["slack"] = WebClient(token=env["SLACK_TOKEN"]).auth_test()["user_id"]
who["linear"] = httpx.post("https://api.linear.app/graphql", headers={"Authorization": env["LINEAR_API_KEY"]},
                           json={"query": "{ viewer { email } }"}).json()["data"]["viewer"]["email"]
cal = build("calendar", "v3", credentials=Credentials(token=env["GOOGLE_OAUTH_ACCESS_TOKEN"]))
who["calendar"] = cal.calendars().get(calendarId="primary").execute()["id"]
who["box"] = BoxClient(BoxDeveloperTokenAuth(token=env["BOX_DEVELOPER_TOKEN"])).users.get_user_me().login
who["github"] = Github(auth=Auth.Token(env["GITHUB_TOKEN"])).get_user().login
stripe.api_key = env["STRIPE_API_KEY"]
who["stripe"] = len(stripe.Customer.list(limit=3).data)
who["twilio"] = Twilio().api.accounts(env["TWILIO_ACCOUNT_SID"]).fetch().friendly_name
who["hubspot"] = len(HubSpot(access_token=env["HUBSPOT_ACCESS_TOKEN"]).crm.contacts.basic_api.get_page(limit=2).results)
who["jira"] = JIRA(server=env["JIRA_URL"], basic_auth=(env["JIRA_EMAIL"], env["JIRA_API_TOKEN"])).myself()["emailAddress"]
who["zendesk"] = Zenpy(subdomain=env["ZENDESK_SUBDOMAIN"], email=env["ZENDESK_EMAIL"],
                       token=env["ZENDESK_API_TOKEN"]).users.me().email
who["notion"] = Notion(auth=env["NOTION_TOKEN"]).users.me()["name"]

work = tempfile.mkdtemp()
def git(*args):
    done = subprocess.run(["git", *args], cwd=work, capture_output=True, text=True, env={**env, "GIT_TERMINAL_PROMPT": "0"})
    assert done.returncode == 0, (args, done.stderr)
git("clone", "-q", "https://github.com/acme/infra.git", ".")  # private: cloning it needs the token
git("checkout", "-q", "-b", "plain-git")
open(os.path.join(work, "NOTES.md"), "w").write("pushed with no flags\n")
git("add", "NOTES.md")
git("commit", "-q", "-m", "Notes")
git("push", "-q", "origin", "plain-git")
print(json.dumps(who))
'''


@pytest.mark.parametrize("backend", ISOLATING)
def test_every_official_client_authenticates_from_the_variables_alone(live_stack, backend):
    env = live_stack.store.create("acme", require_issued_tokens=True).env_id
    result = live_stack.run(env, AGENT, ".py", backend=backend)
    assert result.exit_code == 0, result.stderr[-3000:]
    who = json.loads(result.stdout)
    assert who == {"slack": "U01AGENBOT9", "linear": "agent@example.com", "calendar": "agent@example.com",
                   "box": "agent@example.com", "github": "ai-agent", "stripe": 3, "twilio": "Acme", "hubspot": 2,
                   "jira": "agent@example.com", "zendesk": "agent@example.com", "notion": "AI Agent"}, who
    [pushed] = [r for r in result.diff.inserts if r["__table__"] == "github.github_refs"]
    [commit] = [r for r in result.diff.inserts if r["__table__"] == "github.github_commits"]
    assert pushed["ref"] == "refs/heads/plain-git" and (commit["author_name"], commit["author_email"]) == (
        "AI Agent", "agent@example.com")
