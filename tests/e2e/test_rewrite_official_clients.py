"""Every pack's official client, unmodified, works both ways: through the proxy and in rewrite
mode, where the preludes read the registry's `host[/path]` routes (Calendar shares
www.googleapis.com with Google's other APIs, so only its paths are rewritten). On the
namespace backend, what the preludes miss fails closed on this machine."""

from __future__ import annotations

import json

import pytest

from tests.conftest import needs_namespaces

pytestmark = needs_namespaces

SLACK = r'''
import json
from slack_sdk import WebClient
slack = WebClient(token="xoxb-1")
slack.chat_postMessage(channel="general", text="both ways")
print(json.dumps(slack.conversations_history(channel="general", limit=1)["messages"][0]["text"]))
'''

LINEAR = r'''
import { LinearClient } from "@linear/sdk";
const linear = new LinearClient({ apiKey: "lin_api_agent" });
const eng = await linear.team("ENG");
const made = await (await linear.createIssue({ teamId: eng.id, title: "both ways" })).issue;
console.log(JSON.stringify(made.title));
'''

CALENDAR = r'''
import json
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
cal = build("calendar", "v3", credentials=Credentials("token"))
made = cal.events().insert(calendarId="primary", body={"summary": "both ways",
    "start": {"dateTime": "2018-06-01T10:00:00-07:00"}, "end": {"dateTime": "2018-06-01T11:00:00-07:00"}}).execute()
print(json.dumps(cal.events().get(calendarId="primary", eventId=made["id"]).execute()["summary"]))
'''

BOX = r'''
import json
from box_sdk_gen import BoxClient, BoxDeveloperTokenAuth
from box_sdk_gen.managers.folders import CreateFolderParent
client = BoxClient(auth=BoxDeveloperTokenAuth(token="developer-token"))
print(json.dumps(client.folders.create_folder("both ways", CreateFolderParent(id="0")).name))
'''

GMAIL = r'''
import base64, json
from email.message import EmailMessage
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
gmail = build("gmail", "v1", credentials=Credentials("token"))
note = EmailMessage()
note["To"], note["Subject"] = "john@example.com", "both ways"
note.set_content("Hello")
sent = gmail.users().messages().send(userId="me", body={"raw": base64.urlsafe_b64encode(note.as_bytes()).decode()}).execute()
got = gmail.users().messages().get(userId="me", id=sent["id"], format="metadata", metadataHeaders=["Subject"]).execute()
print(json.dumps(got["payload"]["headers"][0]["value"]))
'''

CLIENTS = {"slack": ("slack_default", SLACK, ".py", "messages"),
           "linear": ("linear_default", LINEAR, ".mjs", "issues"),
           "calendar": ("calendar_default", CALENDAR, ".py", "calendar_events"),
           "box": ("box_default", BOX, ".py", "box_folders"),
           "gmail": ("gmail_default", GMAIL, ".py", "gmail_messages")}


@pytest.mark.parametrize("mode", ["proxy", "rewrite"])
@pytest.mark.parametrize("pack", sorted(CLIENTS))
def test_each_packs_official_client_works_both_ways(live_stack, pack, mode):
    template, code, suffix, table = CLIENTS[pack]
    result = live_stack.run(live_stack.env(template), code, suffix, backend="namespace", mode=mode)
    assert result.exit_code == 0, result.stderr[-2000:]
    assert json.loads(result.stdout) == "both ways"
    assert table in {r["__table__"] for r in result.diff.inserts}
    assert {r.service for r in result.requests} == {pack}
    modes = {r.mode for r in result.requests}
    assert modes == {"rewrite"} if mode == "rewrite" else modes <= {"regular", "transparent"}
