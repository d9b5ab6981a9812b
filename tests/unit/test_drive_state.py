"""The Drive replica's rules, against drive_default: uploads of every kind, downloads with
Range, exports, who sees what (owners, permissions on folders above, links), the query
language over the seed, trash and moves, copies, revisions, comments and the change log."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from detour.apps.server import create_app
from mock_services.drive.seed import file_id, user_id
from mock_services.rest.google import issue_token
from mock_services.store import EnvironmentStore

AUTH = {"Authorization": "Bearer ya29.test"}
TODO, ROADMAP, SALARY = file_id("Notes/todo.txt"), file_id("Engineering/Q3 Roadmap"), file_id("Salary review 2026.csv")
ENGINEERING, CUSTOMERS, HOLIDAYS = file_id("Engineering"), file_id("Customers"), file_id("Company holidays 2026.txt")


@pytest.fixture
def api(state):
    store = EnvironmentStore(state)
    env = store.create("drive_default").env_id
    client = TestClient(create_app(state, api_auth=False))
    base = f"/api/env/{env}/services/drive"

    def call(method: str, path: str, headers: dict | None = None, **kwargs):
        return client.request(method, base + path, headers={**AUTH, **(headers or {})}, **kwargs)
    call.store, call.env = store, env
    return call


def as_person(name: str) -> dict:
    return {"Authorization": f"Bearer {issue_token(user_id(name + '@example.com'))}"}


def names(api, q: str, headers: dict | None = None, **params) -> list[str]:
    answer = api("GET", "/drive/v3/files", headers, params={"q": q, "orderBy": "name", **params})
    assert answer.status_code == 200, answer.text
    return [f["name"] for f in answer.json()["files"]]


def related(metadata: dict, media: bytes, media_type: str) -> tuple[bytes, str]:
    body = (b"--b0undary\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n" + json.dumps(metadata).encode() +
            b"\r\n--b0undary\r\nContent-Type: " + media_type.encode() + b"\r\n\r\n" + media + b"\r\n--b0undary--")
    return body, "multipart/related; boundary=b0undary"


def test_multipart_media_and_resumable_uploads_keep_the_bytes(api):
    body, kind = related({"name": "report.bin", "parents": [file_id("Notes")]}, bytes(range(256)) * 4, "application/x-raw")
    made = api("POST", "/upload/drive/v3/files", params={"uploadType": "multipart", "fields": "id,size,md5Checksum,parents"},
               content=body, headers={"Content-Type": kind}).json()
    assert made["size"] == "1024" and made["parents"] == [file_id("Notes")] and len(made["md5Checksum"]) == 32
    assert api("GET", f"/drive/v3/files/{made['id']}", params={"alt": "media"}).content == bytes(range(256)) * 4
    plain = api("POST", "/upload/drive/v3/files", params={"uploadType": "media"}, content=b"hi",
                headers={"Content-Type": "text/plain"}).json()
    assert plain["name"] == "Untitled" and plain["mimeType"] == "text/plain"
    opened = api("POST", "/upload/drive/v3/files", params={"uploadType": "resumable", "fields": "name, size"},
                 json={"name": "big.txt"},
                 headers={"X-Upload-Content-Type": "text/plain", "X-Upload-Content-Length": "10"})
    session = opened.headers["location"]
    assert opened.status_code == 200 and session.startswith("https://www.googleapis.com/upload/drive/v3/files?")
    path = session.split("googleapis.com", 1)[1]
    first = api("PUT", path, content=b"01234", headers={"Content-Range": "bytes 0-4/10"})
    assert first.status_code == 308 and first.headers["range"] == "bytes=0-4"
    status = api("PUT", path, headers={"Content-Range": "bytes */10"})
    assert status.status_code == 308 and status.headers["range"] == "bytes=0-4"
    done = api("PUT", path, content=b"56789", headers={"Content-Range": "bytes 5-9/10"})
    assert done.status_code == 200 and done.json() == {"name": "big.txt", "size": "10"}  # the fields it opened with
    big = api("GET", "/drive/v3/files", params={"q": "name = 'big.txt'"}).json()["files"][0]["id"]
    assert api("GET", f"/drive/v3/files/{big}", params={"alt": "media"}).content == b"0123456789"
    assert api("PUT", path, content=b"x").status_code == 404  # the session is over


def test_range_downloads_and_exports(api):
    pdf = file_id("Design/Brand guidelines.pdf")
    whole = api("GET", f"/drive/v3/files/{pdf}", params={"alt": "media"})
    assert whole.content.startswith(b"%PDF-1.4") and whole.content.rstrip().endswith(b"%%EOF")
    part = api("GET", f"/drive/v3/files/{pdf}", params={"alt": "media"}, headers={"Range": "bytes=0-7"})
    assert (part.status_code, part.content, part.headers["content-range"]) == (206, b"%PDF-1.4", f"bytes 0-7/{len(whole.content)}")
    assert api("GET", f"/drive/v3/files/{pdf}", params={"alt": "media"},
               headers={"Range": f"bytes={len(whole.content)}-"}).status_code == 416
    text = api("GET", f"/drive/v3/files/{ROADMAP}/export", params={"mimeType": "text/plain"}).text
    assert text.startswith("Q3 Roadmap\nTheme: reliability first.")
    assert "<h1>Q3 Roadmap</h1>" in api("GET", f"/drive/v3/files/{ROADMAP}/export", params={"mimeType": "text/html"}).text
    csv = api("GET", f"/drive/v3/files/{file_id('Customers/Customer accounts')}/export", params={"mimeType": "text/csv"})
    assert csv.text.splitlines()[1].startswith("Globex Corporation,Enterprise,120")
    refused = api("GET", f"/drive/v3/files/{ROADMAP}", params={"alt": "media"})
    assert refused.status_code == 403 and refused.json()["error"]["errors"][0]["reason"] == "fileNotDownloadable"
    assert api("GET", f"/drive/v3/files/{pdf}/export", params={"mimeType": "text/plain"}).status_code == 403
    assert api("GET", f"/drive/v3/files/{ROADMAP}/export", params={"mimeType": "image/png"}).status_code == 400


def test_who_sees_what(api):
    missing = api("GET", f"/drive/v3/files/{SALARY}")
    assert missing.status_code == 404 and missing.json()["error"]["errors"][0]["reason"] == "notFound"
    assert api("GET", f"/drive/v3/files/{SALARY}", as_person("john")).status_code == 200
    assert api("GET", f"/drive/v3/files/{HOLIDAYS}").status_code == 200  # anyone with the link
    assert "Company holidays 2026.txt" not in names(api, "trashed = false")  # but not listed
    inside = names(api, f"'{file_id('Engineering/Incident reports')}' in parents")
    assert inside == ["2025-09-12 API outage.txt"]  # shared through the folder above
    assert names(api, "sharedWithMe") == ["Customers", "Design", "Engineering"]
    readonly = api("PATCH", f"/drive/v3/files/{file_id('Customers/Renewal tracker.csv')}", json={"name": "x"})
    assert readonly.status_code == 403 and readonly.json()["error"]["errors"][0]["reason"] == "insufficientFilePermissions"
    shared = api("POST", f"/drive/v3/files/{TODO}/permissions", json={"role": "writer", "type": "user",
                                                                      "emailAddress": "sarah@example.com"}).json()
    assert shared == {"kind": "drive#permission", "id": user_id("sarah@example.com"), "type": "user",
                      "emailAddress": "sarah@example.com", "role": "writer"}
    assert "todo.txt" in names(api, "sharedWithMe", as_person("sarah"))
    assert api("PATCH", f"/drive/v3/files/{TODO}", as_person("sarah"), json={"name": "todo (Sarah).txt"}).status_code == 200
    listed = api("GET", f"/drive/v3/files/{TODO}/permissions").json()["permissions"]
    assert [(p["role"], p["emailAddress"]) for p in listed] == [("owner", "agent@example.com"), ("writer", "sarah@example.com")]
    assert api("DELETE", f"/drive/v3/files/{TODO}/permissions/{user_id('agent@example.com')}").status_code == 403
    api("DELETE", f"/drive/v3/files/{TODO}/permissions/{user_id('sarah@example.com')}")
    assert api("GET", f"/drive/v3/files/{TODO}", as_person("sarah")).status_code == 404
    refused = api("POST", f"/drive/v3/files/{TODO}/permissions", json={"role": "owner", "type": "user",
                                                                       "emailAddress": "john@example.com"})
    assert refused.status_code == 403
    moved = api("POST", f"/drive/v3/files/{TODO}/permissions", params={"transferOwnership": "true"},
                json={"role": "owner", "type": "user", "emailAddress": "john@example.com"})
    assert moved.json()["role"] == "owner"
    owners = api("GET", f"/drive/v3/files/{TODO}", params={"fields": "owners(emailAddress),ownedByMe"}).json()
    assert owners == {"owners": [{"emailAddress": "john@example.com"}], "ownedByMe": False}


def test_queries_over_the_seed(api):
    assert names(api, "name contains 'Q3' and trashed = false") == ["Q3 Roadmap"]
    assert names(api, "mimeType = 'text/csv' and not name contains 'Renewal'") == [
        "Expenses September.csv", "Sprint velocity.csv"]
    assert names(api, "fullText contains 'Globex'") == [
        "Customer accounts", "Globex QBR notes", "Renewal tracker.csv", "todo.txt"]
    assert names(api, "trashed = true") == ["Old draft.txt"]
    assert names(api, "'root' in parents and mimeType = 'application/vnd.google-apps.folder'") == ["Notes"]
    assert names(api, "modifiedTime > '2025-10-15T00:00:00' and trashed = false") == [
        "Expenses September.csv", "Weekly sync 2025-10-01"]
    assert names(api, "starred = true") == ["Globex QBR notes", "Q3 Roadmap"]
    bad = api("GET", "/drive/v3/files", params={"q": "name = "})
    assert bad.status_code == 400 and bad.json()["error"]["message"] == "Invalid Value"
    page = api("GET", "/drive/v3/files", params={"pageSize": 5, "orderBy": "name desc"}).json()
    rest = api("GET", "/drive/v3/files", params={"pageSize": 5, "orderBy": "name desc",
                                                 "pageToken": page["nextPageToken"]}).json()
    assert len(page["files"]) == 5 and page["files"][-1]["name"] > rest["files"][0]["name"]
    assert api("GET", "/drive/v3/files", params={"pageToken": page["nextPageToken"]}).status_code == 400


def test_trash_moves_copies_and_deletes(api):
    notes = file_id("Notes")
    api("PATCH", f"/drive/v3/files/{notes}", json={"trashed": True})
    child = api("GET", f"/drive/v3/files/{TODO}", params={"fields": "trashed,explicitlyTrashed"}).json()
    assert child == {"trashed": True, "explicitlyTrashed": False}
    api("PATCH", f"/drive/v3/files/{notes}", json={"trashed": False})
    moved = api("PATCH", f"/drive/v3/files/{TODO}", params={"addParents": ENGINEERING, "removeParents": notes,
                                                            "fields": "parents"}).json()
    assert moved == {"parents": [ENGINEERING]}
    two = api("PATCH", f"/drive/v3/files/{TODO}", params={"addParents": notes})
    assert two.status_code == 403 and two.json()["error"]["errors"][0]["reason"] == "cannotAddParent"
    assert api("PATCH", f"/drive/v3/files/{TODO}", json={"parents": [notes]}).status_code == 403
    copied = api("POST", f"/drive/v3/files/{ROADMAP}/copy", params={"fields": "name,parents,ownedByMe"}).json()
    assert copied == {"name": "Copy of Q3 Roadmap", "parents": [ENGINEERING], "ownedByMe": True}
    assert api("DELETE", f"/drive/v3/files/{ROADMAP}").status_code == 403  # a writer, not the owner
    api("DELETE", "/drive/v3/files/trash")
    assert api("GET", f"/drive/v3/files/{file_id('Old draft.txt')}").status_code == 404
    api("DELETE", f"/drive/v3/files/{notes}")
    assert api("GET", f"/drive/v3/files/{file_id('Notes/Weekly sync 2025-10-01')}").status_code == 404


def test_revisions_comments_and_changes(api):
    start = api("GET", "/drive/v3/changes/startPageToken").json()["startPageToken"]
    api("PATCH", f"/upload/drive/v3/files/{TODO}", params={"uploadType": "media"}, content=b"- all done\n",
        headers={"Content-Type": "text/plain"})
    revisions = api("GET", f"/drive/v3/files/{TODO}/revisions").json()["revisions"]
    assert len(revisions) == 2
    first = api("GET", f"/drive/v3/files/{TODO}/revisions/{revisions[0]['id']}", params={"alt": "media"})
    assert first.content.startswith(b"- Draft the customer update")
    no_fields = api("GET", f"/drive/v3/files/{ROADMAP}/comments")
    assert no_fields.status_code == 400 and "fields" in no_fields.json()["error"]["message"]
    comment = api("POST", f"/drive/v3/files/{ROADMAP}/comments", params={"fields": "id,author(emailAddress)"},
                  json={"content": "Looks good"}).json()
    assert comment["author"] == {"emailAddress": "agent@example.com"}
    api("POST", f"/drive/v3/files/{ROADMAP}/comments/AAAAroadmap01/replies", params={"fields": "id"},
        json={"action": "resolve", "content": "Done"})
    listed = api("GET", f"/drive/v3/files/{ROADMAP}/comments", params={"fields": "comments(id,resolved,replies(content))"})
    assert listed.json()["comments"][0]["resolved"] is True and len(listed.json()["comments"][0]["replies"]) == 2
    assert api("POST", f"/drive/v3/files/{file_id('Customers/Globex QBR notes')}/comments", params={"fields": "id"},
               json={"content": "x"}).status_code == 403  # a reader may not comment
    changes = api("GET", "/drive/v3/changes", params={"pageToken": start}).json()
    assert [c["fileId"] for c in changes["changes"]] == [TODO] and int(changes["newStartPageToken"]) > int(start)
    api("DELETE", f"/drive/v3/files/{TODO}")
    gone = api("GET", "/drive/v3/changes", params={"pageToken": changes["newStartPageToken"]}).json()["changes"]
    assert [(c["fileId"], c["removed"]) for c in gone] == [(TODO, True)]
    assert api("GET", "/drive/v3/changes", as_person("robert"), params={"pageToken": start}).json()["changes"] == []


def test_the_diff_shows_files_and_permissions(api):
    api("POST", "/drive/v3/files", json={"name": "Plans", "mimeType": "application/vnd.google-apps.folder"})
    api("POST", f"/drive/v3/files/{TODO}/permissions", json={"role": "reader", "type": "anyone"})
    diff = api.store.diff(api.env)
    inserted = {(r["__table__"], r.get("name") or r.get("id")) for r in diff.inserts}
    assert ("drive_files", "Plans") in inserted and ("drive_permissions", "anyoneWithLink") in inserted
