"""Every Gmail method driven with random and malformed parameters and bodies (raw messages of
garbage, uploads and batches included): never a 5xx, always Google's error shape when it fails."""

from __future__ import annotations

import base64

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mock_services.gmail.router import API
from tests.fidelity.google_shapes import google_shaped, random_call
from tests.unit.google_fuzz import json_values, served_replica

NAMES = sorted({n for o in API.spec.operations for n in o.parameters} | {
    "raw", "threadId", "labelIds", "addLabelIds", "removeLabelIds", "ids", "message", "name", "criteria",
    "action", "from", "query", "sendAsEmail", "forwardingEmail", "topicName", "color", "enableAutoReply"})
MAIL = base64.urlsafe_b64encode(b"To: john@example.com\r\nSubject: Re: Q3 planning numbers\r\n"
                                b"In-Reply-To: <x@y>\r\n\r\nbody\r\n").decode()
SAMPLES = [MAIL, "INBOX", "UNREAD", "Label_1", "me", "agent@example.com", "full", "raw", "from:john OR (",
           'subject:"x', "after:2025/13/45", "-", "{", "r1", "", "=="]
values = json_values(NAMES, SAMPLES)


@pytest.fixture(scope="module")
def replica(tmp_path_factory):
    return served_replica(tmp_path_factory, "gmail_default", "gmail")


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(operation=st.sampled_from(API.spec.operations),
       path_values=st.lists(st.sampled_from(["me", "agent@example.com", "john@example.com", "Label_1", "INBOX",
                                             "196dde2f2002d3ba", "ANGjdJ0", "%00", "..", "x" * 300]),
                            min_size=3, max_size=3),
       query=st.dictionaries(st.sampled_from(NAMES), st.one_of(st.text(max_size=20), st.sampled_from(SAMPLES)), max_size=5),
       body=st.one_of(values, st.binary(max_size=60)))
def test_random_calls(replica, operation, path_values, query, body):
    client, base = replica
    random_call(client, base, operation, path_values, query, body)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.binary(max_size=300), kind=st.sampled_from(["media", "multipart", "resumable", "other"]),
       content_type=st.sampled_from(["message/rfc822", "multipart/related; boundary=b", "multipart/related",
                                     "application/json"]),
       path=st.sampled_from(["users/me/messages/send", "users/me/drafts", "users/me/messages/import", "nowhere"]),
       session=st.one_of(st.none(), st.text(max_size=20)))
def test_random_uploads_and_batches(replica, body, kind, content_type, path, session):
    client, base = replica
    query = {"uploadType": kind} | ({"upload_id": session} if session is not None else {})
    google_shaped(client.post(f"{base}/upload/gmail/v1/{path}", params=query, content=body,
                              headers={"Content-Type": content_type}))
    assert client.post(f"{base}/batch", content=body, headers={"Content-Type": "multipart/mixed; boundary=b"}
                       ).status_code < 500
