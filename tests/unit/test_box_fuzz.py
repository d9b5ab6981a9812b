"""Every Box operation driven with random and malformed parameters, headers and bodies
(multipart uploads and upload parts of garbage included): never a 5xx but the 501 of what is
not modeled, always Box's error shape when it fails."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from detour.apps.server import create_app
from detour_core.paths import StatePaths
from mock_services.box.router import API
from mock_services.store import EnvironmentStore

NAMES = sorted({n for o in API.spec.operations for n in o.parameters} | {
    "name", "parent", "id", "type", "item", "message", "role", "accessible_by", "shared_link", "access",
    "attributes", "file_size", "file_name", "folder_id", "parts", "operations", "action", "url", "op", "path"})
IDS = ["0", "1701916585", "3578701092", "7404947855", "3121597301", "777777", "27512847635", "-1", "x" * 300, "%00"]
scalars = st.one_of(st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70), st.text(max_size=30),
                    st.sampled_from([*IDS, "file", "folder", "web_link", "editor", "open", "a/b", "..", "", "ASC",
                                     "bytes=0-5", "bytes 0-1/2", "sha=AAAA", "global", "properties"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.sampled_from(NAMES), inner, max_size=4)),
                      max_leaves=8)


@pytest.fixture(scope="module")
def replica(tmp_path_factory):
    state = StatePaths(tmp_path_factory.mktemp("box-fuzz")).ensure()
    client = TestClient(create_app(state, api_auth=False), raise_server_exceptions=False, follow_redirects=False)
    return client, f"/api/env/{EnvironmentStore(state).create('box_default').env_id}/services/box"


def box_shaped(response) -> None:
    assert response.status_code < 500 or response.status_code == 501, response.text
    if response.status_code >= 400:
        error = response.json()
        assert error["type"] == "error" and error["status"] == response.status_code and error["code"]


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(operation=st.sampled_from(API.spec.operations), path_values=st.lists(st.sampled_from(IDS), min_size=3,
                                                                            max_size=3),
       query=st.dictionaries(st.sampled_from(NAMES), st.text(max_size=20), max_size=5),
       headers=st.dictionaries(st.sampled_from(["if-match", "content-range", "digest", "box-version", "boxapi",
                                                "range", "content-md5"]), st.text(alphabet="abc=-0123 /", max_size=20),
                               max_size=3),
       body=st.one_of(values, st.binary(max_size=60)))
def test_random_calls(replica, operation, path_values, query, headers, body):
    client, base = replica
    path = operation.path
    for i, name in enumerate(p for p in operation.parameters.values() if p.location == "path"):
        path = path.replace("{" + name.name + "}", path_values[i])
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    response = client.request(operation.method, f"{base}/{path}", params=query, content=content, headers={
        "Authorization": "Bearer fuzz", "Content-Type": operation.content_type, **headers})
    box_shaped(response)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(attributes=st.one_of(values.map(json.dumps), st.text(max_size=40)), data=st.binary(max_size=200),
       order=st.booleans(), boundary=st.sampled_from(["b0und", "", "x;y"]), md5=st.one_of(st.none(), st.text(alphabet="0123456789abcdefg", max_size=40)))
def test_random_uploads(replica, attributes, data, order, boundary, md5):
    client, base = replica
    parts = [("attributes", None, attributes.encode()), ("file", "f.txt", data)]
    if order:
        parts.reverse()
    body = b"".join(f"--b0und\r\nContent-Disposition: form-data; name=\"{name}\""
                    f"{f'; filename=\"{filename}\"' if filename else ''}\r\n\r\n".encode() + content + b"\r\n"
                    for name, filename, content in parts) + b"--b0und--\r\n"
    headers = {"Content-Type": f"multipart/form-data; boundary={boundary}", **({"content-md5": md5} if md5 else {})}
    box_shaped(client.post(f"{base}/api/2.0/files/content", content=body, headers=headers))
    box_shaped(client.post(f"{base}/api/2.0/files/1701916585/content", content=body, headers=headers))
