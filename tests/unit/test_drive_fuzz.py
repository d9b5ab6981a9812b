"""Every Drive method driven with random and malformed parameters, bodies, queries and uploads:
never a 5xx, always Google's error shape when it fails (501 only where the replica keeps no
state, by name)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mock_services.drive.handlers.unsupported import UNKEPT
from mock_services.drive.router import API
from mock_services.drive.seed import file_id
from tests.fidelity.google_shapes import google_shaped, random_call
from tests.unit.google_fuzz import json_values, served_replica

IDS = [file_id("Notes/todo.txt"), file_id("Engineering/Q3 Roadmap"), file_id("Engineering"), "root", "AAAAroadmap01",
       "AAAAroadmap02", "anyoneWithLink", "%00", "..", "x" * 300]
NAMES = sorted({n for o in API.spec.operations for n in o.parameters} | {
    "name", "mimeType", "parents", "role", "type", "emailAddress", "content", "action", "trashed", "starred",
    "properties", "keepForever", "domain", "allowFileDiscovery", "id", "description"})
values = json_values(NAMES, [*IDS, "application/vnd.google-apps.folder", "application/vnd.google-apps.document",
                             "writer", "owner", "anyone", "user", "john@example.com", "resolve", "text/plain"])
query_words = st.sampled_from(["name", "contains", "'x'", "and", "or", "not", "(", ")", "=", "!=", ">", "trashed",
                               "true", "in", "parents", "'root'", "fullText", "modifiedTime", "'2025-01-01'",
                               "sharedWithMe", "has", "{", "}", "key", "value", "properties", "\\'", "'"])


@pytest.fixture(scope="module")
def replica(tmp_path_factory):
    return served_replica(tmp_path_factory, "drive_default", "drive")


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(operation=st.sampled_from(API.spec.operations), path_values=st.lists(st.sampled_from(IDS), min_size=3, max_size=3),
       query=st.dictionaries(st.sampled_from(NAMES), st.text(max_size=20), max_size=5),
       body=st.one_of(values, st.binary(max_size=60)))
def test_random_calls(replica, operation, path_values, query, body):
    client, base = replica
    random_call(client, f"{base}/drive/v3", operation, path_values, query, body, UNKEPT)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.lists(query_words, max_size=9), order=st.sampled_from(["", "name", "folder,modifiedTime desc", "x"]))
def test_random_queries(replica, words, order):
    client, base = replica
    response = client.get(f"{base}/drive/v3/files", params={"q": " ".join(words), "orderBy": order},
                          headers={"Authorization": "Bearer ya29.fuzz"})
    google_shaped(response)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(["media", "multipart", "resumable", "", "x"]), body=st.binary(max_size=200),
       content_type=st.sampled_from(["multipart/related; boundary=b", "multipart/related", "text/plain", ""]),
       content_range=st.sampled_from(["", "bytes 0-3/4", "bytes */4", "bytes 9-1/2", "nonsense"]),
       upload_id=st.sampled_from(["", "nope"]), target=st.sampled_from(["files", f"files/{file_id('Notes/todo.txt')}"]))
def test_random_uploads(replica, kind, body, content_type, content_range, upload_id, target):
    client, base = replica
    params = {"uploadType": kind, **({"upload_id": upload_id} if upload_id else {})}
    headers = {"Authorization": "Bearer ya29.fuzz", "Content-Type": content_type,
               **({"Content-Range": content_range} if content_range else {})}
    method = "PUT" if upload_id else "POST" if target == "files" else "PATCH"
    google_shaped(client.request(method, f"{base}/upload/drive/v3/{target}", params=params, content=body, headers=headers))
