"""The Gmail replica's rules against its gmail_default seed: delivery to the environment's
people (and nowhere else), threads, labels and their counts, drafts, uploads, batches,
history, filters, and whose mailbox a token opens."""

from __future__ import annotations

import base64
import json
from email import message_from_bytes, policy
from email.message import EmailMessage

import pytest
from fastapi.testclient import TestClient

from detour.apps.server import create_app
from mock_services.rest.google import issue_token
from mock_services.store import EnvironmentStore


def as_user(person: str) -> dict:
    return {"Authorization": f"Bearer {issue_token('user_' + person)}"}


@pytest.fixture
def api(state):
    store = EnvironmentStore(state)
    env = store.create("gmail_default").env_id
    client = TestClient(create_app(state, api_auth=False))
    root = f"/api/env/{env}/services/gmail"

    def call(method: str, path: str, person: str = "agent", **kwargs):
        target = path if path.startswith("/upload") or path.startswith("/batch") else "/gmail/v1/users/me" + path
        return client.request(method, root + target, headers={**as_user(person), **kwargs.pop("headers", {})},
                              **kwargs)
    call.store, call.env = store, env
    return call


def mail(to: str, subject: str, body: str = "Hello", **headers) -> EmailMessage:
    message = EmailMessage()
    message["To"], message["Subject"] = to, subject
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    message.set_content(body)
    return message


def raw(message: EmailMessage) -> str:
    return base64.urlsafe_b64encode(message.as_bytes()).decode()


def ids(answer: dict) -> list[str]:
    return [m["id"] for m in answer.get("messages", [])]


def test_mail_reaches_the_environments_people_and_never_leaves_it(api):
    message = mail("John Doe <john@example.com>, someone@elsewhere.example", "Q3 summary", "Numbers attached",
                   Cc="priya@example.com", Bcc="yuki@example.com")
    message.add_attachment(b"region,growth\nAPAC,26%\n", maintype="text", subtype="csv", filename="summary.csv")
    sent = api("POST", "/messages/send", json={"raw": raw(message)}).json()
    assert sent["labelIds"] == ["SENT"]
    for person in ("john", "priya", "yuki"):
        found = api("GET", "/messages", person, params={"q": "from:agent subject:(Q3 summary) has:attachment "
                                                             "filename:csv is:unread in:inbox"}).json()
        assert len(ids(found)) == 1, person
        copy = api("GET", f"/messages/{ids(found)[0]}", person, params={"format": "raw"}).json()
        delivered = message_from_bytes(base64.urlsafe_b64decode(copy["raw"]), policy=policy.default)
        assert delivered["From"] == "AI Agent <agent@example.com>" and delivered["Message-ID"]
        assert delivered["Bcc"] is None  # Bcc leaves no trace in what recipients get
    own = api("GET", f"/messages/{sent['id']}", params={"format": "metadata", "metadataHeaders": ["Bcc", "Subject"]})
    assert own.json()["payload"]["headers"] == [{"name": "Subject", "value": "Q3 summary"},
                                                 {"name": "Bcc", "value": "yuki@example.com"}]
    with api.store.open(api.env) as state:
        diff = state.diff()
    copies = [(r["user_id"], r["label_ids"]) for r in diff.inserts if r["__table__"] == "gmail_messages"]
    assert copies == [("user_agent", ["SENT"]), ("user_john", ["INBOX", "UNREAD"]),
                      ("user_priya", ["INBOX", "UNREAD"]), ("user_yuki", ["INBOX", "UNREAD"])]
    assert api("POST", "/messages/send", json={"raw": raw(mail("", "nobody"))}).status_code == 400


def test_replies_thread_by_reference_and_subject_in_each_mailbox(api):
    sent = api("POST", "/messages/send", json={"raw": raw(mail("john@example.com", "Offsite budget"))}).json()
    johns = ids(api("GET", "/messages", "john", params={"q": "subject:offsite budget"}).json())[0]
    original = api("GET", f"/messages/{johns}", "john", params={"format": "metadata"}).json()
    message_id = next(h["value"] for h in original["payload"]["headers"] if h["name"] == "Message-ID")
    reply = mail("agent@example.com", "Re: Offsite budget", "Approved", In_Reply_To=message_id, References=message_id)
    answer = api("POST", "/messages/send", "john", json={"raw": raw(reply), "threadId": original["threadId"]}).json()
    assert answer["threadId"] == original["threadId"]
    thread = api("GET", f"/threads/{sent['threadId']}").json()
    assert [m["labelIds"] for m in thread["messages"]] == [["SENT"], ["INBOX", "UNREAD"]]
    assert thread["messages"][1]["snippet"] == "Approved"
    unrelated = api("POST", "/messages/send", json={"raw": raw(mail("john@example.com", "Offsite budget"))}).json()
    assert unrelated["threadId"] != sent["threadId"]  # the same subject without a reference: a new thread
    elsewhere = api("POST", "/messages/send", json={"raw": raw(mail("john@example.com", "Other topic")),
                                                   "threadId": sent["threadId"]}).json()
    assert elsewhere["threadId"] != sent["threadId"]  # another subject leaves the thread asked for
    listed = api("GET", "/threads", params={"q": "offsite budget", "maxResults": 5}).json()["threads"]
    assert {t["id"] for t in listed} >= {sent["threadId"], unrelated["threadId"]}


def test_labels_counts_and_changes(api):
    made = api("POST", "/labels", json={"name": "Board", "labelListVisibility": "labelShow"}).json()
    assert made["id"].startswith("Label_") and made["type"] == "user"
    assert api("POST", "/labels", json={"name": "board"}).status_code == 409
    assert api("POST", "/labels", json={"name": "INBOX"}).status_code == 409
    unread = ids(api("GET", "/messages", params={"q": "is:unread in:inbox", "maxResults": 3}).json())
    api("POST", "/messages/batchModify", json={"ids": unread, "addLabelIds": [made["id"]], "removeLabelIds": ["UNREAD"]})
    counted = api("GET", f"/labels/{made['id']}").json()
    assert (counted["messagesTotal"], counted["messagesUnread"]) == (3, 0)
    assert ids(api("GET", "/messages", params={"q": "label:board"}).json()) == unread
    assert api("POST", f"/messages/{unread[0]}/modify", json={"addLabelIds": ["Label_99"]}).status_code == 400
    renamed = api("PATCH", f"/labels/{made['id']}", json={"name": "Board/2025"}).json()
    assert renamed["name"] == "Board/2025" and ids(api("GET", "/messages", params={"q": "label:board-2025"}).json())
    api("DELETE", f"/labels/{made['id']}")
    assert made["id"] not in api("GET", f"/messages/{unread[0]}").json()["labelIds"]
    assert api("GET", "/labels/INBOX").json()["messagesTotal"] > 0


def test_trash_hides_a_message_until_asked_for_and_delete_removes_it(api):
    first = ids(api("GET", "/messages", params={"maxResults": 1}).json())[0]
    api("POST", f"/messages/{first}/trash")
    assert first not in ids(api("GET", "/messages", params={"maxResults": 500}).json())
    assert first in ids(api("GET", "/messages", params={"q": "in:trash"}).json())
    assert first in ids(api("GET", "/messages", params={"includeSpamTrash": "true", "maxResults": 500}).json())
    api("POST", f"/messages/{first}/untrash")
    assert first in ids(api("GET", "/messages", params={"maxResults": 500}).json())
    assert api("DELETE", f"/messages/{first}").status_code == 204
    assert api("GET", f"/messages/{first}").status_code == 404


def test_drafts_are_created_updated_and_sent(api):
    made = api("POST", "/drafts", json={"message": {"raw": raw(mail("sarah@example.com", "Mockups", "v1"))}}).json()
    updated = api("PUT", f"/drafts/{made['id']}", json={"message": {"raw": raw(mail("sarah@example.com", "Mockups",
                                                                                     "v2"))}}).json()
    assert updated["id"] == made["id"] and updated["message"]["id"] != made["message"]["id"]
    assert api("GET", f"/drafts/{made['id']}").json()["message"]["snippet"] == "v2"
    assert made["id"] in [d["id"] for d in api("GET", "/drafts").json()["drafts"]]
    sent = api("POST", "/drafts/send", json={"id": made["id"]}).json()
    assert sent["labelIds"] == ["SENT"]
    assert api("GET", f"/drafts/{made['id']}").status_code == 404
    assert ids(api("GET", "/messages", "sarah", params={"q": "subject:mockups v2"}).json())


def test_uploads_and_batches_run_as_the_operations_they_stand_for(api):
    media = api("POST", "/upload/gmail/v1/users/me/messages/send?uploadType=media",
                content=mail("john@example.com", "By media").as_bytes(), headers={"Content-Type": "message/rfc822"})
    assert media.status_code == 200, media.text
    boundary = "b0undary"
    related = (f"--{boundary}\r\nContent-Type: application/json\r\n\r\n" + json.dumps({"labelIds": ["INBOX"]}) +
               f"\r\n--{boundary}\r\nContent-Type: message/rfc822\r\n\r\n").encode() + \
        mail("agent@example.com", "By multipart").as_bytes() + f"\r\n--{boundary}--\r\n".encode()
    inserted = api("POST", "/upload/gmail/v1/users/me/messages?uploadType=multipart", content=related,
                   headers={"Content-Type": f"multipart/related; boundary={boundary}"}).json()
    assert inserted["labelIds"] == ["INBOX"]
    session = api("POST", "/upload/gmail/v1/users/me/drafts?uploadType=resumable", json={},
                  headers={"X-Upload-Content-Type": "message/rfc822"})
    location = session.headers["location"].removeprefix("https://gmail.googleapis.com")
    draft = api("PUT", location, content=mail("john@example.com", "Resumable").as_bytes()).json()
    assert draft["id"].startswith("r") and draft["message"]["id"]
    assert [m for m in ids(api("GET", "/messages", "john", params={"q": "subject:(by media)"}).json())]
    for path in ("/batch", "/batch/gmail/v1"):
        body = (f"--batch\r\nContent-Type: application/http\r\nContent-ID: <1>\r\n\r\n"
                f"GET /gmail/v1/users/me/messages/{inserted['id']}?format=minimal HTTP/1.1\r\n\r\n"
                f"--batch\r\nContent-Type: application/http\r\nContent-ID: <2>\r\n\r\n"
                f"GET /gmail/v1/users/me/messages/nope HTTP/1.1\r\n\r\n--batch--\r\n")
        answer = api("POST", path, content=body, headers={"Content-Type": "multipart/mixed; boundary=batch"})
        assert answer.status_code == 200 and "HTTP/1.1 200 OK" in answer.text and "HTTP/1.1 404" in answer.text


def test_history_filters_and_whose_mailbox(api):
    start = api("GET", "/profile").json()["historyId"]
    inbox = ids(api("GET", "/messages", params={"maxResults": 1}).json())[0]
    api("POST", f"/messages/{inbox}/modify", json={"addLabelIds": ["STARRED"]})
    history = api("GET", "/history", params={"startHistoryId": start}).json()
    assert history["history"][0]["labelsAdded"][0]["labelIds"] == ["STARRED"]
    assert int(history["historyId"]) > int(start)
    receipts = next(label["id"] for label in api("GET", "/labels").json()["labels"] if label["name"] == "Receipts")
    api("POST", "/messages/send", "john", json={"raw": raw(mail("agent@example.com", "Invoice", From="John Doe "
                                                                                                 "<billing@cloudnimbus.example>"))})
    api("POST", "/settings/sendAs", "john", json={"sendAsEmail": "billing@cloudnimbus.example"})
    api("POST", "/messages/send", "john", json={"raw": raw(mail("agent@example.com", "Invoice 2", From=
                                                                "billing@cloudnimbus.example"))})
    filed = api("GET", "/messages", params={"q": "subject:invoice", "labelIds": [receipts], "maxResults": 50}).json()
    subjects = [api("GET", f"/messages/{i}", params={"format": "metadata", "metadataHeaders": "Subject"}).json()
                ["payload"]["headers"][0]["value"] for i in ids(filed)]
    assert "Invoice 2" in subjects and "Invoice" not in subjects  # From is the sender's own unless an alias
    assert api("GET", "/messages", params={"q": "subject:(invoice 2) in:inbox"}).json()["resultSizeEstimate"] == 0
    assert api("GET", "/profile", "john").json()["emailAddress"] == "john@example.com"
    other = api("GET", "/messages", "john", params={"maxResults": 1}).json()["messages"][0]["id"]
    assert api("GET", f"/messages/{other}").status_code == 404
    denied = api("GET", "/batch/../gmail/v1/users/john@example.com/profile")
    assert denied.status_code == 403 and denied.json()["error"]["message"] == "Delegation denied for agent@example.com"


def test_lists_page_newest_first_and_estimate_the_whole_result(api):
    first = api("GET", "/messages", params={"maxResults": 10}).json()
    second = api("GET", "/messages", params={"maxResults": 10, "pageToken": first["nextPageToken"]}).json()
    assert len(ids(first)) == len(ids(second)) == 10 and not set(ids(first)) & set(ids(second))
    assert first["resultSizeEstimate"] == second["resultSizeEstimate"] > 20
    dates = [int(api("GET", f"/messages/{i}", params={"format": "minimal"}).json()["internalDate"])
             for i in ids(first) + ids(second)]
    assert dates == sorted(dates, reverse=True)
    assert api("GET", "/messages", params={"pageToken": "garbage"}).status_code == 400


def test_a_vacation_responder_answers_in_the_thread_and_never_an_automatic_reply(api):
    away = {"enableAutoReply": True, "responseBodyPlainText": "Away until Monday.", "restrictToDomain": True}
    assert api("PUT", "/settings/vacation", "john", json=away).json()["enableAutoReply"] is True
    api("PUT", "/settings/vacation", json=away | {"responseBodyPlainText": "The agent is away too."})
    sent = api("POST", "/messages/send", json={"raw": raw(mail("john@example.com", "Budget question"))}).json()
    thread = api("GET", f"/threads/{sent['threadId']}").json()["messages"]
    assert [(m["labelIds"], m["snippet"]) for m in thread] == [(["SENT"], "Hello"),
                                                              (["INBOX", "UNREAD"], "Away until Monday.")]
    assert api("GET", "/messages", "john", params={"q": "in:sent subject:(budget question)"}).json()[
        "resultSizeEstimate"] == 1  # the agent's own responder did not answer John's
    api("PUT", "/settings/vacation", "john", json={"enableAutoReply": True, "endTime": "1000"})
    later = api("POST", "/messages/send", json={"raw": raw(mail("john@example.com", "Budget again"))}).json()
    assert len(api("GET", f"/threads/{later['threadId']}").json()["messages"]) == 1  # ended: no answer


def test_insert_and_import_date_their_messages_as_google_does(api):
    dated = mail("agent@example.com", "Old news", Date="Mon, 03 Mar 2025 09:00:00 +0000", From="x@elsewhere.example")
    imported = api("POST", "/messages/import", json={"raw": raw(dated), "labelIds": ["INBOX"]}).json()
    inserted = api("POST", "/messages", json={"raw": raw(dated)}).json()
    dates = [api("GET", f"/messages/{m['id']}", params={"format": "minimal"}).json()["internalDate"]
             for m in (imported, inserted)]
    assert dates[0] == "1740992400000" and dates[1] != dates[0]  # import: the Date header; insert: received now
    assert imported["labelIds"] == ["INBOX"] and "labelIds" not in inserted  # Google leaves out empty lists
    assert api("GET", "/messages", params={"q": "before:2025/03/04 after:2025/03/03"}).json()["messages"] == \
        [{"id": imported["id"], "threadId": imported["threadId"]}]
    refused = api("POST", f"/messages/{imported['id']}/modify", json={"addLabelIds": ["SENT"]})
    assert refused.status_code == 400 and refused.json()["error"]["message"] == "Invalid label: SENT"
