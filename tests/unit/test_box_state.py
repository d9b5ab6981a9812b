"""The Box replica's rules, against AgentDiff's box_default seed: who may see and change what,
etags, the trash, contents kept per environment across restarts, budgets, and the diff."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

import pytest
from fastapi.testclient import TestClient

from detour.apps.server import create_app
from mock_services.box.access import issue_token
from mock_services.request_budget import RequestBudget
from mock_services.store import EnvironmentStore

ADMIN, SARAH, JOHN = "27512847635", "31847562910", "45928173064"
LAB, LOGS, REPORT = "3578701092", "4023537767", "1701916585"


@pytest.fixture
def box(state):
    store = EnvironmentStore(state)
    client = TestClient(create_app(state, api_auth=False))

    def env() -> str:
        return store.create("box_default").env_id

    def call(env_id: str, method: str, path: str, user: str | None = None, **kwargs):
        token = issue_token(user) if user else "developer-token"
        headers = {"Authorization": f"Bearer {token}", **kwargs.pop("headers", {})}
        return client.request(method, f"/api/env/{env_id}/services/box/{path}", headers=headers, **kwargs)
    call.env, call.store, call.client = env, store, client
    return call


def upload(box, env_id: str, name: str, data: bytes, parent: str = "0", user: str | None = None):
    return box(env_id, "POST", "api/2.0/files/content", user, files={
        "attributes": (None, json.dumps({"name": name, "parent": {"id": parent}})), "file": (name, data)})


def download(box, env_id: str, file_id: str, user: str | None = None) -> bytes:
    found = box(env_id, "GET", f"2.0/files/{file_id}/content", user, follow_redirects=False)
    assert found.status_code == 302, found.text
    token = found.headers["location"].split("/d/1/")[1]
    return box.client.get(f"/api/env/{env_id}/services/box/d/1/{token}").content


def test_collaboration_roles_decide_what_a_user_sees_and_does(box):
    env = box.env()
    assert box(env, "GET", f"2.0/folders/{LAB}", SARAH).status_code == 404  # not shared with her: not there
    assert [e["id"] for e in box(env, "GET", "2.0/folders/0/items", SARAH).json()["entries"]] == []
    box(env, "POST", "2.0/collaborations", json={"item": {"type": "folder", "id": LAB}, "role": "viewer",
                                                 "accessible_by": {"type": "user", "id": SARAH}})
    assert [e["id"] for e in box(env, "GET", "2.0/folders/0/items", SARAH).json()["entries"]] == [LAB]
    assert box(env, "GET", f"2.0/files/{REPORT}", SARAH).status_code == 200  # through the folder above it
    assert b"INCUNABULA" in download(box, env, REPORT, SARAH).upper()
    renamed = box(env, "PUT", f"2.0/files/{REPORT}", SARAH, json={"name": "mine.txt"})
    assert (renamed.status_code, renamed.json()["code"]) == (403, "access_denied_insufficient_permissions")
    assert upload(box, env, "x.txt", b"x", LAB, SARAH).status_code == 403
    assert box(env, "GET", f"2.0/files/{REPORT}", JOHN).status_code == 404
    collab = box(env, "GET", f"2.0/folders/{LAB}/collaborations").json()["entries"][0]
    box(env, "PUT", f"2.0/collaborations/{collab['id']}", json={"role": "editor"})
    assert box(env, "PUT", f"2.0/files/{REPORT}", SARAH, json={"name": "mine.txt"}).json()["name"] == "mine.txt"
    assert upload(box, env, "x.txt", b"x", LAB, SARAH).json()["entries"][0]["owned_by"]["id"] == SARAH


def test_etags_guard_changes(box):
    env = box.env()
    etag = box(env, "GET", f"2.0/files/{REPORT}").json()["etag"]
    changed = box(env, "PUT", f"2.0/files/{REPORT}", json={"description": "x"}, headers={"if-match": etag}).json()
    assert changed["etag"] != etag
    stale = box(env, "PUT", f"2.0/files/{REPORT}", json={"description": "y"}, headers={"if-match": etag})
    assert (stale.status_code, stale.json()["code"]) == (412, "precondition_failed")
    assert box(env, "DELETE", f"2.0/files/{REPORT}", headers={"if-match": etag}).status_code == 412


def test_the_trash_keeps_a_folder_with_its_contents_and_restores_them(box):
    env = box.env()
    assert box(env, "DELETE", f"2.0/folders/{LOGS}").json()["code"] == "folder_not_empty"
    assert box(env, "DELETE", f"2.0/folders/{LOGS}", params={"recursive": "true"}).status_code == 204
    assert box(env, "GET", f"2.0/folders/{LOGS}").json()["code"] == "trashed"
    assert [e["id"] for e in box(env, "GET", "2.0/folders/trash/items").json()["entries"]] == [LOGS]
    assert box(env, "GET", "2.0/search", params={"query": "humidity_log"}).json()["total_count"] == 0
    assert box(env, "POST", f"2.0/folders/{LOGS}", json={}).status_code == 201
    assert box(env, "GET", "2.0/search", params={"query": "humidity_log"}).json()["total_count"] == 2


def test_contents_are_the_environments_own_and_survive_a_restart(box, state):
    first, second = box.env(), box.env()
    made = upload(box, first, "secret.txt", b"only in the first").json()["entries"][0]
    assert made["sha1"] == hashlib.sha1(b"only in the first").hexdigest() and made["size"] == 17
    assert box(second, "GET", f"2.0/files/{made['id']}").status_code == 404
    restarted = TestClient(create_app(state, api_auth=False))
    found = restarted.get(f"/api/env/{first}/services/box/2.0/files/{made['id']}/content", follow_redirects=False)
    token = found.headers["location"].split("/d/1/")[1]
    assert restarted.get(f"/api/env/{first}/services/box/d/1/{token}").content == b"only in the first"
    assert restarted.get(f"/api/env/{second}/services/box/d/1/{token}").status_code == 404
    ranged = restarted.get(f"/api/env/{first}/services/box/d/1/{token}", headers={"Range": "bytes=5-8"})
    assert (ranged.status_code, ranged.content, ranged.headers["content-range"]) == (206, b"in t", "bytes 5-8/17")


def test_a_spent_budget_answers_429_with_retry_after(box):
    env = box.env()
    box.store.set_request_budget(env, RequestBudget(requests=2, per_seconds=60))
    assert [box(env, "GET", "2.0/users/me").status_code for _ in range(2)] == [200, 200]
    spent = box(env, "GET", "2.0/users/me")
    assert (spent.status_code, spent.json()["code"]) == (429, "rate_limit_exceeded")
    assert int(spent.headers["retry-after"]) > 0


def test_the_diff_shows_rows_as_agentdiff_names_them(box):
    env = box.env()
    made = upload(box, env, "a.txt", b"one").json()["entries"][0]
    box(env, "POST", f"api/2.0/files/{made['id']}/content", files={"attributes": (None, "{}"), "file": ("a.txt", b"two")})
    box(env, "PUT", f"2.0/folders/{LOGS}", json={"name": "logs"})
    diff = box.store.diff(env)
    files = [r for r in diff.inserts if r["__table__"] == "box_files"]
    assert [(f["name"], f["size"], f["sha_1"], f["version_number"]) for f in files] == [
        ("a.txt", 3, hashlib.sha1(b"two").hexdigest(), "2")]
    assert len([r for r in diff.inserts if r["__table__"] == "box_file_versions"]) == 2
    renamed = [u for u in diff.updates if u["__table__"] == "box_folders"]
    assert [(u["before"]["name"], u["after"]["name"]) for u in renamed] == [("treatment_logs", "logs")]


def test_a_zip_download_holds_the_folders_real_contents(box):
    env = box.env()
    made = box(env, "POST", "2.0/zip_downloads", json={"items": [{"type": "folder", "id": LOGS}],
                                                     "download_file_name": "logs"})
    assert made.status_code == 202
    token = made.json()["download_url"].split("/d/1/")[1]
    archive = zipfile.ZipFile(io.BytesIO(box.client.get(f"/api/env/{env}/services/box/d/1/{token}").content))
    assert sorted(archive.namelist()) == ["treatment_logs/humidity_log_q3_2025.txt",
                                          "treatment_logs/humidity_log_q4_2025.txt"]
    assert b"BOOKS TREATED THIS QUARTER" in archive.read("treatment_logs/humidity_log_q3_2025.txt")


def test_an_admin_acts_as_another_user_with_as_user(box):
    env = box.env()
    assert box(env, "GET", "2.0/users/me", headers={"As-User": SARAH}).json()["id"] == SARAH
    assert box(env, "GET", f"2.0/folders/{LAB}", headers={"As-User": SARAH}).status_code == 404  # as Sarah sees it
    refused = box(env, "GET", "2.0/users/me", SARAH, headers={"As-User": ADMIN})
    assert (refused.status_code, refused.json()["code"]) == (403, "access_denied_insufficient_permissions")
    assert box(env, "GET", "2.0/users/me", headers={"As-User": "1"}).status_code == 400
