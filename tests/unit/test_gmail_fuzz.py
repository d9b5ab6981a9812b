"""Every Gmail method driven with random and malformed parameters and bodies (raw messages of
garbage, uploads and batches included): never a 5xx, always Google's error shape when it fails."""

from __future__ import annotations

import base64
import json

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from detour.apps.server import create_app
from detour_core.paths import StatePaths
from mock_services.gmail.router import API
from mock_services.store import EnvironmentStore

NAMES = sorted({n for o in API.spec.operations for n in o.parameters} | {
    "raw", "threadId", "labelIds", "addLabelIds", "removeLabelIds", "ids", "message", "name", "criteria",
    "action", "from", "query", "sendAsEmail", "forwardingEmail", "topicName", "color", "enableAutoReply"})
MAIL = base64.urlsafe_b64encode(b"To: john@example.com\r\nSubject: Re: Q3 planning numbers\r\n"
                                b"In-Reply-To: <x@y>\r\n\r\nbody\r\n").decode()
scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70), st.text(max_size=30),
                    st.sampled_from([MAIL, "INBOX", "UNREAD", "Label_1", "me", "agent@example.com", "full", "raw",
                                     "from:john OR (", 'subject:"x', "after:2025/13/45", "-", "{", "r1", "", "=="]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.sampled_from(NAMES), inner, max_size=4)),
                      max_leaves=8)


@pytest.fixture(scope="module")
def replica(tmp_path_factory):
    state = StatePaths(tmp_path_factory.mktemp("gmail-fuzz")).ensure()
    client = TestClient(create_app(state, api_auth=False), raise_server_exceptions=False)
    return client, f"/api/env/{EnvironmentStore(state).create('gmail_default').env_id}/services/gmail"


def google_shaped(response) -> None:
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        error = response.json()["error"]
        assert error["code"] == response.status_code and error["errors"][0]["reason"]


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(operation=st.sampled_from(API.spec.operations),
       path_values=st.lists(st.sampled_from(["me", "agent@example.com", "john@example.com", "Label_1", "INBOX",
                                             "196dde2f2002d3ba", "ANGjdJ0", "%00", "..", "x" * 300]),
                            min_size=3, max_size=3),
       query=st.dictionaries(st.sampled_from(NAMES), st.one_of(st.text(max_size=20), scalars.map(str)), max_size=5),
       body=st.one_of(values, st.binary(max_size=60)))
def test_random_calls(replica, operation, path_values, query, body):
    client, base = replica
    path = operation.path
    for i, name in enumerate(p for p in operation.parameters.values() if p.location == "path"):
        path = path.replace("{" + name.name + "}", path_values[i])
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    response = client.request(operation.method, f"{base}/{path}", params=query, content=content,
                              headers={"Authorization": "Bearer ya29.fuzz", "Content-Type": "application/json"})
    google_shaped(response)


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
