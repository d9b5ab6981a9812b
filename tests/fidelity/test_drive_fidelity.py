"""The fidelity suite for Drive: every method of Drive v3's discovery document, called as a
client calls it (`fields=*`, so the whole answer is checked) on a fresh drive_default
environment, its answer checked field by field against the document's schema (known fields,
the document's types, int64 as strings). A score per family (the document's resources) is
printed. Methods the replica keeps no state for must answer Google's error shape with 501;
every other method must answer and conform.

It also holds the committed spec to the installed document and every method to a handler."""

from __future__ import annotations

import json
from collections import Counter, defaultdict

import pytest
from fastapi.testclient import TestClient

from detour.apps.server import create_app
from mock_services.drive.handlers.unsupported import UNKEPT
from mock_services.drive.router import API, MEDIA_UPLOADS, SPEC_FILE
from mock_services.drive.seed import file_id
from mock_services.rest.discovery import generate, installed_document
from mock_services.store import EnvironmentStore
from tests.fidelity.google_shapes import conforms

AUTH = {"Authorization": "Bearer ya29.fidelity"}
TODO, DOC, ROADMAP = file_id("Notes/todo.txt"), file_id("Notes/Weekly sync 2025-10-01"), file_id("Engineering/Q3 Roadmap")
BODIES = {"File": {"name": "Fidelity", "mimeType": "application/vnd.google-apps.folder"},
          "Permission": {"role": "reader", "type": "user", "emailAddress": "john@example.com"},
          "Comment": {"content": "A fidelity comment"}, "Reply": {"content": "A fidelity reply"},
          "Revision": {"keepForever": True}}
QUERIES = {"changes.list": {"pageToken": "1"}, "changes.watch": {"pageToken": "1"},
           "files.export": {"mimeType": "text/plain"}}
RESULTS: dict[str, Counter] = defaultdict(Counter)


@pytest.fixture
def drive(state):
    env = EnvironmentStore(state).create("drive_default").env_id
    client = TestClient(create_app(state, api_auth=False))
    base = f"/api/env/{env}/services/drive"

    def call(method: str, path: str, headers: dict | None = None, **kwargs):
        return client.request(method, f"{base}/{path}", headers={**AUTH, **(headers or {})}, **kwargs)
    return call


def prepared(drive, operation) -> dict[str, str]:
    """Path values naming what the seed (or a call made first) holds, for this method."""
    short = operation.short_id
    values = {"fileId": ROADMAP if short.split(".")[0] in ("comments", "replies") else
              DOC if short == "files.export" else TODO,
              "driveId": "nodrive", "teamDriveId": "nodrive", "appId": "noapp", "name": "x",
              "proposalId": "p", "approvalId": "a", "commentId": "AAAAroadmap01", "replyId": "AAAAroadmap02"}
    if short.startswith("permissions.") and "permissionId" in operation.parameters:
        values["permissionId"] = drive("POST", f"drive/v3/files/{TODO}/permissions", json=BODIES["Permission"]).json()["id"]
    if short in ("comments.update", "comments.delete", "replies.update", "replies.delete"):
        values["commentId"] = drive("POST", f"drive/v3/files/{ROADMAP}/comments", params={"fields": "id"},
                                    json=BODIES["Comment"]).json()["id"]
        if short.startswith("replies."):
            values["replyId"] = drive("POST", f"drive/v3/files/{ROADMAP}/comments/{values['commentId']}/replies",
                                      params={"fields": "id"}, json=BODIES["Reply"]).json()["id"]
    if short.startswith("revisions."):
        values["revisionId"] = drive("GET", f"drive/v3/files/{TODO}", params={"fields": "headRevisionId"}).json()["headRevisionId"]
        drive("PATCH", f"upload/drive/v3/files/{TODO}", params={"uploadType": "media"}, content=b"newer\n",
              headers={"Content-Type": "text/plain"})
    return values


def test_the_committed_spec_is_the_installed_discovery_document():
    assert SPEC_FILE.read_text() == generate(installed_document("drive", "v3")), \
        "run: python -m mock_services.rest.discovery drive v3 " + str(SPEC_FILE)


def test_every_method_has_a_handler_and_the_uploads_are_the_documents():
    document = installed_document("drive", "v3")
    assert API.missing() == []
    assert {o.short_id for o in API.spec.operations} == set(API.handlers)

    def uploads(resources: dict) -> set[str]:
        return {m["id"].split(".", 1)[1] for r in resources.values() for m in r.get("methods", {}).values()
                if m.get("mediaUpload")} | {u for r in resources.values() for u in uploads(r.get("resources", {}))}
    assert uploads(document["resources"]) == set(MEDIA_UPLOADS)


@pytest.mark.parametrize("operation", API.spec.operations, ids=lambda o: o.id)
def test_every_method_answers_in_the_documents_shape(drive, operation):
    path = operation.path
    for name, value in prepared(drive, operation).items():
        path = path.replace("{" + name + "}", value)
    query = {"fields": "*", **{p.name: "x" for p in operation.required() if p.location == "query"}}
    query.update(QUERIES.get(operation.short_id, {}))
    body = BODIES.get(operation.request or "")
    response = drive(operation.method, f"drive/v3/{path}", params=query, json=body)
    family = operation.short_id.split(".")[0]
    if operation.short_id in UNKEPT:
        assert response.status_code == 501 and response.json()["error"]["errors"][0]["reason"] == "notImplemented"
        RESULTS[family]["not kept (501)"] += 1
        return
    assert response.status_code in (200, 204, 404), response.text
    if response.status_code == 404:  # a shared drive's id: none exist here
        assert operation.short_id in ("drives.get", "teamdrives.get"), response.text
        RESULTS[family]["conforms"] += 1
        return
    if operation.response and response.headers["content-type"].startswith("application/json"):
        problems = conforms(response.json(), {"$ref": operation.response}, API.spec.schemas)
        RESULTS[family]["conforms" if not problems else "leaves the schema"] += 1
        assert problems == [], json.dumps(response.json())[:500]
    else:
        RESULTS[family]["conforms"] += 1


def test_print_the_score_per_family():
    """Runs after the methods above (pytest keeps a file's order) and prints their score."""
    if not RESULTS:
        pytest.skip("run with the methods' test")
    print("\nDrive fidelity, by family (methods answering in the document's shape / all):")
    for family, counts in sorted(RESULTS.items()):
        total = sum(counts.values())
        print(f"  {family:<16} {counts['conforms']:>2}/{total:<2}  " +
              ", ".join(f"{k}: {v}" for k, v in counts.items() if k != "conforms"))
    assert sum(c["leaves the schema"] for c in RESULTS.values()) == 0
