"""Google's own Python client (google-api-python-client), run unmodified in a sandbox, reaches
the environment's Drive replica through the proxy: a folder, a multipart and a resumable
upload (in chunks), sharing with a colleague, a list with a query, downloads with Range (the
client's chunked downloader and a Range of our own), a Doc exported as text, a batch, Google's 404; the
diff shows the files and the permission. Google's Node client (npm @googleapis/drive) and curl too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ISOLATING, needs_docker, needs_namespaces
from tests.e2e.official_clients import run_node_client

AGENT = r'''
import io, json
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
from googleapiclient.errors import HttpError
from googleapiclient.http import MediaInMemoryUpload, MediaIoBaseDownload

drive = build("drive", "v3", credentials=Credentials(token="anything"))
out = {}
folder = drive.files().create(body={"name": "Launch", "mimeType": "application/vnd.google-apps.folder"},
                              fields="id").execute()
small = drive.files().create(body={"name": "plan.txt", "parents": [folder["id"]]},
                             media_body=MediaInMemoryUpload(b"launch plan: ship on Monday\n", mimetype="text/plain"),
                             fields="id,size,md5Checksum").execute()
data = bytes(range(256)) * 4096  # 1 MiB, sent in four chunks of 256 KiB
big = drive.files().create(body={"name": "data.bin", "parents": [folder["id"]]}, fields="id,size",
                           media_body=MediaInMemoryUpload(data, mimetype="application/octet-stream",
                                                          resumable=True, chunksize=256 * 1024)).execute()
out["sizes"] = [small["size"], big["size"]]
shared = drive.permissions().create(fileId=small["id"], fields="role,emailAddress",
                                    body={"role": "writer", "type": "user", "emailAddress": "sarah@example.com"}).execute()
out["shared"] = shared
listed = drive.files().list(q=f"'{folder['id']}' in parents and trashed = false and name contains 'plan'",
                            orderBy="name", fields="files(name,shared)").execute()
out["listed"] = listed["files"]
buffer = io.BytesIO()
downloader = MediaIoBaseDownload(buffer, drive.files().get_media(fileId=big["id"]), chunksize=300 * 1024)
done, chunks = False, 0
while not done:
    _, done = downloader.next_chunk()
    chunks += 1
out["download"] = [buffer.getvalue() == data, chunks]
ranged = drive.files().get_media(fileId=small["id"])
ranged.headers["Range"] = "bytes=0-10"
out["range"] = ranged.execute().decode()
doc = drive.files().list(q="name = 'Q3 Roadmap'", fields="files(id)").execute()["files"][0]["id"]
out["export"] = drive.files().export(fileId=doc, mimeType="text/plain").execute().decode().splitlines()[:2]
answers = []
batch = drive.new_batch_http_request(callback=lambda rid, response, error: answers.append(
    (rid, response["name"] if response else None, error.resp.status if error else None)))
batch.add(drive.files().get(fileId=small["id"], fields="name"), request_id="plan")
batch.add(drive.files().get(fileId="no-such-file"), request_id="missing")
batch.execute()
out["batch"] = sorted(answers)
try:
    drive.files().get(fileId="no-such-file").execute()
except HttpError as e:
    out["error"] = [e.resp.status, json.loads(e.content)["error"]["errors"][0]["reason"]]
print(json.dumps(out))
'''


@pytest.mark.parametrize("backend", ["process", pytest.param("namespace", marks=needs_namespaces),
                                     pytest.param("docker", marks=needs_docker)])
def test_google_api_python_client_through_the_proxy(live_stack, backend):
    env = live_stack.env("drive_default")
    result = live_stack.run(env, AGENT, ".py", backend=backend)
    assert result.exit_code == 0, result.stderr[-3000:]
    out = json.loads(result.stdout)
    assert out["sizes"] == ["28", str(1024 * 1024)]
    assert out["shared"] == {"role": "writer", "emailAddress": "sarah@example.com"}
    assert out["listed"] == [{"name": "plan.txt", "shared": True}]
    assert out["download"] == [True, 4]
    assert out["range"] == "launch plan"
    assert out["export"] == ["Q3 Roadmap", "Theme: reliability first. Cut API p99 latency to 300 ms and error rate under 0.1%."]
    assert out["batch"] == [["missing", None, 404], ["plan", "plan.txt", None]]
    assert out["error"] == [404, "notFound"]
    assert {r.service for r in result.requests} == {"drive"} and {r.host for r in result.requests} == {"www.googleapis.com"}
    files = {row["name"]: row for row in result.diff.inserts if row["__table__"] == "drive_files"}
    assert set(files) == {"Launch", "plan.txt", "data.bin"} and files["data.bin"]["size"] == 1024 * 1024
    assert [(row["email"], row["role"]) for row in result.diff.inserts if row["__table__"] == "drive_permissions"] \
        == [("sarah@example.com", "writer")]


NODE_AGENT = r'''
import { auth as google, drive as client } from "@googleapis/drive";
const auth = new google.OAuth2();
auth.setCredentials({ access_token: "anything" });
const drive = client({ version: "v3", auth });
const out = {};
const made = await drive.files.create({ requestBody: { name: "node.txt" }, fields: "id,size",
  media: { mimeType: "text/plain", body: "hello from node\n" } });
out.size = made.data.size;
await drive.permissions.create({ fileId: made.data.id, requestBody: { role: "reader", type: "user",
  emailAddress: "yuki@example.com" } });
const part = await drive.files.get({ fileId: made.data.id, alt: "media" },
  { responseType: "text", headers: { Range: "bytes=0-4" } });
out.range = [part.status, part.data];
const listed = await drive.files.list({ q: "sharedWithMe and name contains 'Eng'", fields: "files(name)" });
out.listed = listed.data.files.map((f) => f.name);
try {
  await drive.files.get({ fileId: "no-such-file" });
} catch (e) {
  out.error = [e.status ?? e.code, e.response?.data?.error?.errors?.[0]?.reason];
}
console.log(JSON.stringify(out));
'''


@pytest.mark.parametrize("backend", ISOLATING)
def test_npm_googleapis_through_the_proxy(live_stack, backend, request):
    """Google's Node client for Drive (npm @googleapis/drive): a multipart upload, a share, a
    Range download, a query."""
    result = run_node_client(live_stack, request, backend, "@googleapis/drive", NODE_AGENT, "drive_default")
    assert result.exit_code == 0, result.stderr[-3000:]
    assert json.loads(result.stdout) == {"size": "16", "range": [206, "hello"], "listed": ["Engineering"],
                                         "error": [404, "notFound"]}
    assert [(row["email"], row["role"]) for row in result.diff.inserts if row["__table__"] == "drive_permissions"] \
        == [("yuki@example.com", "reader")]


CURL_AGENT = r'''
set -e
base=https://www.googleapis.com
curl -s -H 'Authorization: Bearer x' "$base/drive/v3/files?q=name%20contains%20'Sprint'&fields=files(name,size)"; echo
curl -s -H 'Authorization: Bearer x' -H 'Content-Type: text/csv' --data-binary 'a,b
1,2
' "$base/upload/drive/v3/files?uploadType=media&fields=mimeType,size"; echo
curl -s -o /dev/null -w '%{http_code}\n' -H 'Authorization: Bearer x' "$base/drive/v3/files/nope"
'''


@pytest.mark.parametrize("backend", ISOLATING)
def test_curl_through_the_proxy(live_stack, backend):
    result = live_stack.run(live_stack.env("drive_default"), CURL_AGENT, ".sh", backend=backend)
    assert result.exit_code == 0, result.stderr
    listed, uploaded, missing = result.stdout.splitlines()
    assert json.loads(listed) == {"files": [{"name": "Sprint velocity.csv", "size": "120"}]}
    assert json.loads(uploaded) == {"mimeType": "text/csv", "size": "8"}
    assert missing == "404"


REWRITTEN = r'''
import json
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
from googleapiclient.http import MediaInMemoryUpload
drive = build("drive", "v3", credentials=Credentials("token"))
made = drive.files().create(body={"name": "both ways.txt"}, fields="id", media_body=MediaInMemoryUpload(
    b"x" * 300000, mimetype="text/plain", resumable=True, chunksize=256 * 1024)).execute()
ranged = drive.files().get_media(fileId=made["id"])
ranged.headers["Range"] = "bytes=299998-"
print(json.dumps([ranged.execute().decode(), drive.files().get(fileId=made["id"], fields="size").execute()["size"]]))
'''


@pytest.mark.parametrize("backend", [pytest.param("namespace", marks=needs_namespaces)])
def test_rewrite_mode(live_stack, backend):
    """The preludes rewrite Drive's paths on www.googleapis.com, the resumable session's
    Location included."""
    result = live_stack.run(live_stack.env("drive_default"), REWRITTEN, ".py", backend=backend, mode="rewrite")
    assert result.exit_code == 0, result.stderr[-3000:]
    assert json.loads(result.stdout) == ["xx", "300000"]
    assert {r.mode for r in result.requests} == {"rewrite"} and {r.service for r in result.requests} == {"drive"}
    assert [row["name"] for row in result.diff.inserts if row["__table__"] == "drive_files"] == ["both ways.txt"]


def test_a_suite_of_drive_tasks_passes_with_a_scripted_agent(tmp_path):
    """Ten tasks in AgentDiff's format, as a user asks them (fixtures/drive-suite), run by
    `detour suite run` with an agent written from Google's documentation; each passes."""
    suite = Path(__file__).parents[1] / "fixtures" / "drive-suite" / "drive_sample.json"
    agent = Path(__file__).parents[1] / "agents" / "drive_sample.py"
    done = subprocess.run([str(Path(sys.executable).parent / "detour"), "suite", "run", str(suite), "--agent",
                           f"python3 {agent}", "--json"], env=os.environ | {"DETOUR_HOME": str(tmp_path / "home")},
                          capture_output=True, text=True, timeout=600)
    assert done.stdout.strip(), done.stderr[-3000:]
    report = json.loads(done.stdout)
    failed = {t["id"]: [t["stderr_tail"][-500:], [a for a in t["assertions"] if not a["passed"]]]
              for t in report["tests"] if not t["passed"]}
    assert len(report["tests"]) == 10 and failed == {} and done.returncode == 0, failed
