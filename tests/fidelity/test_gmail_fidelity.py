"""The fidelity suite for Gmail: every method of Gmail v1's discovery document, called as a
client calls it on a fresh gmail_default environment (what it names taken from the seed, or
made by a call first), its answer checked field by field against the document's schema. A
score per family (the document's resources) is printed. Delegation, client-side encryption
and S/MIME are Workspace administrators' features: those answer Google's error shape (403,
404); every other method must answer and conform.

It also holds the committed spec to the installed document and every method to a handler."""

from __future__ import annotations

import base64
import json
from collections import Counter, defaultdict
from email.message import EmailMessage

import pytest
from fastapi.testclient import TestClient

from detour.apps.server import create_app
from mock_services.gmail.router import API, SPEC_FILE
from mock_services.rest.discovery import generate, installed_document
from mock_services.rest.google import issue_token
from mock_services.store import EnvironmentStore
from tests.fidelity.google_shapes import conforms

AUTH = {"Authorization": f"Bearer {issue_token('user_agent')}"}
REFUSED = {"users.settings.delegates", "users.settings.cse.identities", "users.settings.cse.keypairs",
           "users.settings.sendAs.smimeInfo"}
RESULTS: dict[str, Counter] = defaultdict(Counter)


def raw_mail(subject: str = "Fidelity") -> str:
    message = EmailMessage()
    message["To"], message["Subject"] = "john@example.com", subject
    message.set_content("Checking shapes")
    message.add_attachment(b"a,b\n", maintype="text", subtype="csv", filename="f.csv")
    return base64.urlsafe_b64encode(message.as_bytes()).decode()


BODIES = {"Message": {"raw": raw_mail()}, "Draft": {"message": {"raw": raw_mail("Draft")}},
          "ModifyMessageRequest": {"addLabelIds": ["STARRED"]}, "ModifyThreadRequest": {"addLabelIds": ["STARRED"]},
          "Label": {"name": "Fidelity"}, "WatchRequest": {"topicName": "projects/acme/topics/mail"},
          "Filter": {"criteria": {"from": "x@example.com"}, "action": {"addLabelIds": ["STARRED"]}},
          "SendAs": {"sendAsEmail": "alias@example.com", "displayName": "Alias"},
          "ForwardingAddress": {"forwardingEmail": "fwd@example.com"},
          "VacationSettings": {"enableAutoReply": True, "responseSubject": "Away"},
          "ImapSettings": {"enabled": False}, "PopSettings": {"accessWindow": "allMail"},
          "LanguageSettings": {"displayLanguage": "en-GB"}, "AutoForwarding": {"enabled": False}}


@pytest.fixture
def gmail(state):
    env = EnvironmentStore(state).create("gmail_default").env_id
    client = TestClient(create_app(state, api_auth=False))

    def call(method: str, path: str, **kwargs):
        return client.request(method, f"/api/env/{env}/services/gmail/gmail/v1/users/me/{path}", headers=AUTH,
                              **kwargs)
    return call


def prepared(gmail, short: str) -> tuple[dict[str, str], dict | None]:
    """Path values naming what the seed (or a call made first) holds, and the body, for this method."""
    with_file = gmail("GET", "messages", params={"q": "has:attachment", "maxResults": 1}).json()["messages"][0]
    message = gmail("GET", f"messages/{with_file['id']}").json()
    attachment = next(p for p in message["payload"]["parts"] if p["filename"])["body"]["attachmentId"]
    draft = gmail("GET", "drafts").json()["drafts"][0]["id"]
    values = {"userId": "me", "messageId": with_file["id"], "sendAsEmail": "agent@example.com",
              "delegateEmail": "john@example.com", "cseEmailAddress": "agent@example.com",
              "emailAddress": "agent@example.com", "keyPairId": "k1", "forwardingEmail": "fwd@example.com"}
    family = short.rsplit(".", 1)[0]
    values["id"] = {"users.messages": with_file["id"], "users.threads": with_file["threadId"], "users.labels": "Label_1",
                    "users.drafts": draft, "users.messages.attachments": attachment,
                    "users.settings.sendAs.smimeInfo": "s1"}.get(family, "")
    if family == "users.settings.filters":
        values["id"] = gmail("GET", "settings/filters").json()["filter"][0]["id"]
    if short == "users.settings.sendAs.delete":  # an alias: the primary address cannot go
        values["sendAsEmail"] = gmail("POST", "settings/sendAs", json=BODIES["SendAs"]).json()["sendAsEmail"]
    if family == "users.settings.forwardingAddresses" and not short.endswith("create"):
        gmail("POST", "settings/forwardingAddresses", json=BODIES["ForwardingAddress"])
    body = BODIES.get(API.spec.operation(short).request or "")
    if short in ("users.messages.batchModify", "users.messages.batchDelete"):
        body = {"ids": [with_file["id"]], "addLabelIds": ["STARRED"]} if short.endswith("Modify") else {"ids": [with_file["id"]]}
    if short == "users.drafts.send":
        body = {"id": draft}
    if short in ("users.settings.sendAs.update", "users.settings.sendAs.patch"):
        body = {"displayName": "Agent"}
    return values, body


def test_the_committed_spec_is_the_installed_discovery_document():
    assert SPEC_FILE.read_text() == generate(installed_document("gmail", "v1")), \
        "run: python -m mock_services.rest.discovery gmail v1 " + str(SPEC_FILE)


def test_every_method_of_the_document_has_a_handler():
    document = json.loads(generate(installed_document("gmail", "v1")))
    assert len(document["operations"]) >= 79
    assert API.missing() == []
    assert {o["id"].split(".", 1)[1] for o in document["operations"]} == set(API.handlers)


@pytest.mark.parametrize("operation", API.spec.operations, ids=lambda o: o.id)
def test_every_method_answers_in_the_documents_shape(gmail, operation):
    values, body = prepared(gmail, operation.short_id)
    path = operation.path.removeprefix("gmail/v1/users/{userId}/").removeprefix("gmail/v1/users/{userId}")
    for name, value in values.items():
        path = path.replace("{" + name + "}", value)
    query = {"startHistoryId": "1000"} if operation.short_id == "users.history.list" else {}
    response = gmail(operation.method, path.lstrip("/"), params=query, json=body)
    family = operation.short_id.rsplit(".", 1)[0]
    if family in REFUSED and response.status_code >= 400:
        error = response.json()["error"]
        assert response.status_code in (403, 404) and error["code"] == response.status_code and error["errors"]
        RESULTS[family]["refused"] += 1
        return
    assert response.status_code in (200, 204), response.text
    if operation.response and response.status_code == 200:
        assert conforms(response.json(), {"$ref": operation.response}, API.spec.schemas) == []
    RESULTS[family]["conforms"] += 1


def test_print_the_score_per_family():
    """Run after the methods (pytest keeps a module's order): the table, for the record."""
    if not RESULTS:
        pytest.skip("run with the methods' test")
    for family, counts in sorted(RESULTS.items()):
        total = sum(counts.values())
        print(f"{family:40} {counts['conforms']}/{total} conform, {counts['refused']} refused as Google does")
    assert sum(c["conforms"] for c in RESULTS.values()) >= 60
