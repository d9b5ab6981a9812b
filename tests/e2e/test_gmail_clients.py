"""Google's own Python client (google-api-python-client with google-auth credentials), run
unmodified in a sandbox with tokens the environment issued, reaches the environment's Gmail
replica through the proxy: the agent sends a colleague a message with an attachment, the
colleague finds it with a search, reads the attachment, replies in the thread and labels it;
a batch and a resumable media upload; the diff shows the messages and the label."""

from __future__ import annotations

import json

import pytest

from mock_services.rest.google import issue_token
from tests.conftest import ISOLATING
from tests.e2e.official_clients import run_node_client

AGENT = r'''
import base64, io, json
from email.message import EmailMessage
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
from googleapiclient.errors import HttpError
from googleapiclient.http import MediaIoBaseUpload

def encoded(message):
    return base64.urlsafe_b64encode(message.as_bytes()).decode()

# Access tokens the environment issues, one per person (the agent acts as itself and as John).
agent = build("gmail", "v1", credentials=Credentials(AGENT_TOKEN))
john = build("gmail", "v1", credentials=Credentials(JOHN_TOKEN))
out = {}

note = EmailMessage()
note["To"], note["Subject"] = "John Doe <john@example.com>", "Q3 growth summary"
note.set_content("Hi John,\n\nAPAC grew fastest. The table is attached.\n")
note.add_attachment(b"region,growth\nAPAC,26.3%\nNorth America,13.6%\n", maintype="text", subtype="csv",
                    filename="q3_growth.csv")
sent = agent.users().messages().send(userId="me", body={"raw": encoded(note)}).execute()
out["sent"] = sent["labelIds"]

found = john.users().messages().list(userId="me", q='from:agent has:attachment subject:"growth summary" is:unread').execute()
out["found"] = found["resultSizeEstimate"]
got = john.users().messages().get(userId="me", id=found["messages"][0]["id"]).execute()
part = next(p for p in got["payload"]["parts"] if p["filename"])
data = john.users().messages().attachments().get(userId="me", messageId=got["id"], id=part["body"]["attachmentId"]).execute()
out["attachment"] = [part["filename"], base64.urlsafe_b64decode(data["data"]).decode().splitlines()[1]]
headers = {h["name"]: h["value"] for h in got["payload"]["headers"]}

reply = EmailMessage()
reply["To"], reply["Subject"] = headers["From"], "Re: " + headers["Subject"]
reply["In-Reply-To"] = reply["References"] = headers["Message-ID"]
reply.set_content("Thanks, adding it to the board deck.")
answered = john.users().messages().send(userId="me", body={"raw": encoded(reply), "threadId": got["threadId"]}).execute()
out["same_thread"] = answered["threadId"] == got["threadId"]
board = john.users().labels().create(userId="me", body={"name": "Board deck"}).execute()
john.users().threads().modify(userId="me", id=got["threadId"],
                              body={"addLabelIds": [board["id"]], "removeLabelIds": ["UNREAD"]}).execute()
out["labelled"] = john.users().labels().get(userId="me", id=board["id"]).execute()["threadsTotal"]

thread = agent.users().threads().get(userId="me", id=sent["threadId"], format="metadata").execute()
out["agent_thread"] = [m["labelIds"] for m in thread["messages"]]

answers = []
batch = agent.new_batch_http_request(callback=lambda rid, response, error: answers.append(
    (rid, bool(response), error.resp.status if error else None)))
batch.add(agent.users().getProfile(userId="me"), request_id="profile")
batch.add(agent.users().messages().get(userId="me", id="0000000000000000"), request_id="missing")
batch.execute()
out["batch"] = sorted(answers)

memo = EmailMessage()
memo["To"], memo["Subject"] = "yuki@example.com", "Uploaded as media"
memo.set_content("Sent through a resumable upload.")
media = MediaIoBaseUpload(io.BytesIO(memo.as_bytes()), mimetype="message/rfc822", resumable=True)
out["uploaded"] = agent.users().messages().send(userId="me", body={}, media_body=media).execute()["labelIds"]
try:
    agent.users().messages().get(userId="john@example.com", id=got["id"]).execute()
except HttpError as e:
    out["error"] = [e.resp.status, json.loads(e.content)["error"]["errors"][0]["reason"]]
print(json.dumps(out))
'''


@pytest.mark.parametrize("backend", ISOLATING)
def test_google_api_python_client_sends_finds_replies_and_labels(live_stack, backend):
    env = live_stack.env("gmail_default")
    tokens = f"AGENT_TOKEN = {issue_token('user_agent')!r}\nJOHN_TOKEN = {issue_token('user_john')!r}\n"
    result = live_stack.run(env, tokens + AGENT, ".py", backend=backend)
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out == {"sent": ["SENT"], "found": 1, "attachment": ["q3_growth.csv", "APAC,26.3%"], "same_thread": True,
                   "labelled": 1, "agent_thread": [["SENT"], ["INBOX", "UNREAD"]],
                   "batch": [["missing", False, 404], ["profile", True, None]], "uploaded": ["SENT"],
                   "error": [403, "forbidden"]}
    assert {(r.service, r.host) for r in result.requests} == {("gmail", "gmail.googleapis.com")}
    board = [r["id"] for r in result.diff.inserts if r["__table__"] == "gmail_labels" and r["name"] == "Board deck"]
    assert len(board) == 1
    messages = [(r["user_id"], r["subject"], r["label_ids"]) for r in result.diff.inserts
                if r["__table__"] == "gmail_messages"]
    assert messages == [("user_agent", "Q3 growth summary", ["SENT"]),
                        ("user_john", "Q3 growth summary", ["INBOX", board[0]]),  # read and labelled
                        ("user_john", "Re: Q3 growth summary", ["SENT", board[0]]),
                        ("user_agent", "Re: Q3 growth summary", ["INBOX", "UNREAD"]),
                        ("user_agent", "Uploaded as media", ["SENT"]),
                        ("user_yuki", "Uploaded as media", ["INBOX", "UNREAD"])]


NODE_AGENT = r'''
import { auth, gmail as client } from "@googleapis/gmail";
const as = (token) => { const oauth = new auth.OAuth2(); oauth.setCredentials({ access_token: token }); return oauth; };
const gmail = client({ version: "v1", auth: as(AGENT_TOKEN) });
const sarah = client({ version: "v1", auth: as(SARAH_TOKEN) });
const mail = "To: sarah@example.com\r\nSubject: Mockups from node\r\nContent-Type: text/plain\r\n\r\nLooks good.\r\n";
const out = {};
const sent = await gmail.users.messages.send({ userId: "me", requestBody: { raw: Buffer.from(mail).toString("base64url") } });
out.sent = sent.data.labelIds;
const uploaded = await gmail.users.messages.send({ userId: "me", requestBody: {},  // multipart/related to /upload/
  media: { mimeType: "message/rfc822", body: mail.replace("from node", "uploaded from node") } });
out.uploaded = uploaded.data.labelIds;
const found = await sarah.users.messages.list({ userId: "me", q: "from:agent subject:(from node) is:unread" });
out.found = found.data.resultSizeEstimate;
const read = await sarah.users.messages.modify({ userId: "me", id: found.data.messages[0].id,
                                                 requestBody: { removeLabelIds: ["UNREAD"] } });
out.read = read.data.labelIds;
try {
  await gmail.users.labels.get({ userId: "me", id: "Label_404" });
} catch (e) {
  out.error = [e.status ?? e.code, e.response?.data?.error?.errors?.[0]?.reason];
}
console.log(JSON.stringify(out));
'''


@pytest.mark.parametrize("backend", ISOLATING)
def test_npm_googleapis_sends_uploads_and_searches(live_stack, backend, request):
    """Google's Node client for Gmail (npm @googleapis/gmail): JSON and a multipart media
    upload, a search in the colleague's mailbox."""
    tokens = (f"const AGENT_TOKEN = {json.dumps(issue_token('user_agent'))};\n"
              f"const SARAH_TOKEN = {json.dumps(issue_token('user_sarah'))};\n")
    result = run_node_client(live_stack, request, backend, "@googleapis/gmail", tokens + NODE_AGENT, "gmail_default")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == {"sent": ["SENT"], "uploaded": ["SENT"], "found": 2, "read": ["INBOX"],
                                         "error": [404, "notFound"]}
    assert {r.host for r in result.requests} == {"gmail.googleapis.com"}
    assert [r["subject"] for r in result.diff.inserts if (r["__table__"], r["user_id"]) == ("gmail_messages",
                                                                                              "user_sarah")] == \
        ["Mockups from node", "Mockups uploaded from node"]


CURL_AGENT = r'''
set -e
base=https://gmail.googleapis.com/gmail/v1/users/me
raw=$(printf 'To: robert@example.com\r\nSubject: From curl\r\n\r\nHi Robert\r\n' | base64 -w0 | tr '+/' '-_')
curl -s -H "Authorization: Bearer x" -H 'Content-Type: application/json' "$base/messages/send" -d "{\"raw\": \"$raw\"}"; echo
curl -s -H "Authorization: Bearer x" "$base/messages?q=subject:curl+in:sent&fields=resultSizeEstimate"; echo
curl -s -o /dev/null -w '%{http_code}\n' "https://gmail.googleapis.com/gmail/v2/users/me/profile"
'''


@pytest.mark.parametrize("backend", ISOLATING)
def test_curl_sends_and_searches(live_stack, backend):
    result = live_stack.run(live_stack.env("gmail_default"), CURL_AGENT, ".sh", backend=backend)
    assert result.exit_code == 0, result.stderr
    sent, listed, other = result.stdout.splitlines()
    assert json.loads(sent)["labelIds"] == ["SENT"]
    assert json.loads(listed) == {"resultSizeEstimate": 1}
    assert other == "403"  # a path of Gmail's host that no pack serves stays denied
    assert [(r["user_id"], r["subject"]) for r in result.diff.inserts if r["__table__"] == "gmail_messages"] == \
        [("user_agent", "From curl"), ("user_robert", "From curl")]
