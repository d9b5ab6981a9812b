"""A scripted agent for the Gmail tasks (tests/fixtures/gmail-suite/gmail_bench.json): what a
careful agent would do for each prompt, with google-api-python-client as Google's Gmail guides
write it (messages built with the `email` package, sent as base64url `raw`; a reply carries
`threadId`, `In-Reply-To` and `References`), unaware of detour."""

import base64
import csv
import io
import os
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage

from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build

gmail = build("gmail", "v1", credentials=Credentials(token="agent-token"))
messages = gmail.users().messages()


def search(query):
    return messages.list(userId="me", q=query).execute().get("messages", [])


def fetch(message_id):
    return messages.get(userId="me", id=message_id).execute()


def headers(message):
    return {h["name"]: h["value"] for h in message["payload"]["headers"]}


def attachment(message, name):
    part = next(p for p in message["payload"].get("parts", []) if p["filename"] == name)
    data = messages.attachments().get(userId="me", messageId=message["id"], id=part["body"]["attachmentId"]).execute()
    return base64.urlsafe_b64decode(data["data"])


def send(note, thread_id=None):
    body = {"raw": base64.urlsafe_b64encode(note.as_bytes()).decode()}
    if thread_id:
        body["threadId"] = thread_id
    return messages.send(userId="me", body=body).execute()


def note(to, subject, text):
    message = EmailMessage()
    message["To"], message["Subject"] = to, subject
    message.set_content(text)
    return message


def reply(original, text):
    said = headers(original)
    answer = note(said["From"], said["Subject"] if said["Subject"].startswith("Re:") else "Re: " + said["Subject"], text)
    answer["In-Reply-To"] = answer["References"] = said["Message-ID"]
    return send(answer, original["threadId"])


def test_1():
    found = fetch(search("from:john subject:(Q3 planning numbers) has:attachment filename:csv")[0]["id"])
    rows = list(csv.DictReader(io.StringIO(attachment(found, "q3_numbers.csv").decode())))
    reply(found, "Growth per region: " + ", ".join(f"{r['region']} {r['growth']}" for r in rows if r["region"] != "Total"))


def test_2():
    invoice = fetch(search('from:billing@cloudnimbus.example subject:"invoice for 2025-05"')[0]["id"])
    forward = note("john@example.com", "Fwd: " + headers(invoice)["Subject"], "Hi John, could you approve this invoice?")
    forward.add_attachment(attachment(invoice, "invoice_2025-05.pdf"), maintype="application", subtype="pdf",
                           filename="invoice_2025-05.pdf")
    send(forward)


def test_3():
    label = gmail.users().labels().create(userId="me", body={"name": "Escalations"}).execute()
    for company in ("Globex", "Initech"):
        for thread in gmail.users().threads().list(userId="me", q=f"subject:{company}").execute().get("threads", []):
            gmail.users().threads().modify(userId="me", id=thread["id"], body={"addLabelIds": [label["id"]]}).execute()


def test_4():
    found = search("from:news@devweekly.example in:inbox")
    messages.batchModify(userId="me", body={"ids": [m["id"] for m in found],
                                            "removeLabelIds": ["INBOX", "UNREAD"]}).execute()


def test_5():
    reply(fetch(search("from:sarah subject:(analytics dashboard)")[0]["id"]),
          "Hi Sarah, you have access to the analytics dashboard now.")


def test_6():
    found = fetch(search("from:priya subject:(June renewals) filename:csv")[0]["id"])
    owners = {}
    for row in csv.DictReader(io.StringIO(attachment(found, "renewals_june.csv").decode())):
        owners.setdefault(row["owner"], []).append(f"{row['account']} on {row['renewal_date']}")
    for owner, accounts in owners.items():
        send(note(f"{owner}@example.com", "June renewal reminder", "Renewing in June: " + "; ".join(accounts)))


def test_7():
    draft = next(d for d in gmail.users().drafts().list(userId="me").execute()["drafts"]
                 if "Release notes for 2.4" in headers(gmail.users().drafts().get(userId="me", id=d["id"]).execute()
                                                       ["message"])["Subject"])
    raw = gmail.users().drafts().get(userId="me", id=draft["id"], format="raw").execute()["message"]["raw"]
    old = message_from_bytes(base64.urlsafe_b64decode(raw), policy=policy.default)
    updated = note("john@example.com", old["Subject"], old.get_content().rstrip("\n") + "\n- SSO fixes\n")
    gmail.users().drafts().update(userId="me", id=draft["id"], body={"message": {
        "raw": base64.urlsafe_b64encode(updated.as_bytes()).decode()}}).execute()
    gmail.users().drafts().send(userId="me", body={"id": draft["id"]}).execute()


def test_8():
    label = gmail.users().labels().create(userId="me", body={"name": "Newsletters"}).execute()
    gmail.users().settings().filters().create(userId="me", body={
        "criteria": {"from": "news@devweekly.example"},
        "action": {"addLabelIds": [label["id"]], "removeLabelIds": ["INBOX"]}}).execute()


def test_9():
    def millis(day):
        return str(int(datetime(2025, 6, day, tzinfo=UTC).timestamp() * 1000))
    gmail.users().settings().updateVacation(userId="me", body={
        "enableAutoReply": True, "restrictToDomain": True, "responseSubject": "Out of office",
        "responseBodyPlainText": "At the team offsite, back on June 23.",
        "startTime": millis(19), "endTime": millis(21)}).execute()


def test_10():
    found = fetch(search("from:robert subject:(API latency) filename:postmortem")[0]["id"])
    name = next(p["filename"] for p in found["payload"]["parts"] if p["filename"].startswith("postmortem"))
    cause = next(line for line in attachment(found, name).decode().splitlines() if line.startswith("Root cause"))
    send(note("priya@example.com", "API latency root cause", cause.split(":", 1)[1].strip()))


globals()[os.environ["DETOUR_TEST_ID"]]()
