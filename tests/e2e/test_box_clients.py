"""Box's own clients, run unmodified in a sandbox, reach the environment's Box replica through
the proxy: PyPI `boxsdk` (the generated SDK, box_sdk_gen), npm `box-node-sdk` and curl, over
folders, uploads (small and chunked), downloads (the 302 to dl.boxcloud.com, and Range),
versions, comments, tasks, shared links, search and metadata; the diff shows what they did."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ISOLATING
from tests.e2e.official_clients import run_node_client

AGENT = r'''
import hashlib, io, json
from box_sdk_gen import BoxClient, BoxDeveloperTokenAuth, BoxAPIError
from box_sdk_gen.managers.folders import CreateFolderParent
from box_sdk_gen.managers.uploads import (UploadFileAttributes, UploadFileAttributesParentField,
                                          UploadFileVersionAttributes)
from box_sdk_gen.managers.comments import CreateCommentItem, CreateCommentItemTypeField
from box_sdk_gen.managers.tasks import CreateTaskItem, CreateTaskItemTypeField, CreateTaskAction
from box_sdk_gen.managers.task_assignments import CreateTaskAssignmentTask, CreateTaskAssignmentAssignTo
from box_sdk_gen.managers.shared_links_files import AddShareLinkToFileSharedLink, AddShareLinkToFileSharedLinkAccessField
from box_sdk_gen.managers.file_metadata import CreateFileMetadataByIdScope

client = BoxClient(auth=BoxDeveloperTokenAuth(token="developer-token"))
out = {"me": client.users.get_user_me().name}
root = client.folders.get_folder_items("0", fields=["name"], sort="name", direction="ASC")
out["root"] = [e.name for e in root.entries][:3]
folder = client.folders.create_folder("Project_Beta", CreateFolderParent(id="0"))
uploaded = client.uploads.upload_file(
    UploadFileAttributes(name="notes.txt", parent=UploadFileAttributesParentField(id=folder.id)),
    io.BytesIO(b"first draft\n")).entries[0]
out["sha1"] = uploaded.sha_1 == hashlib.sha1(b"first draft\n").hexdigest()
client.uploads.upload_file_version(uploaded.id, UploadFileVersionAttributes(name="notes.txt"), io.BytesIO(b"second draft\n"))
out["download"] = client.downloads.download_file(uploaded.id).read().decode()
out["range"] = client.downloads.download_file(uploaded.id, range="bytes=0-5").read().decode()
out["versions"] = [v.sha_1 == hashlib.sha1(b"first draft\n").hexdigest() for v in client.file_versions.get_file_versions(uploaded.id).entries]
big = bytes(range(256)) * (21_000_000 // 256)
chunked = client.chunked_uploads.upload_big_file(io.BytesIO(big), "big.bin", len(big), folder.id)
out["chunked"] = [chunked.size, chunked.sha_1 == hashlib.sha1(big).hexdigest()]
found = client.search.search_for_content(query="argentina 2001 crisis", file_extensions=["txt"])
crisis = found.entries[0]
out["found"] = crisis.name
text = client.downloads.download_file(crisis.id).read().decode()
out["slogan"] = "Que se vayan todos" in text
client.comments.create_comment("Que se vayan todos", CreateCommentItem(id=crisis.id, type=CreateCommentItemTypeField.FILE))
task = client.tasks.create_task(CreateTaskItem(id=uploaded.id, type=CreateTaskItemTypeField.FILE),
                                action=CreateTaskAction.REVIEW, message="Please review")
assigned = client.task_assignments.create_task_assignment(CreateTaskAssignmentTask(id=task.id),
                                                          CreateTaskAssignmentAssignTo(id="31847562910"))
out["assigned"] = assigned.assigned_to.name
shared = client.shared_links_files.add_share_link_to_file(
    uploaded.id, "shared_link", shared_link=AddShareLinkToFileSharedLink(access=AddShareLinkToFileSharedLinkAccessField.OPEN))
out["shared"] = shared.shared_link.url.startswith("https://app.box.com/s/")
meta = client.file_metadata.create_file_metadata_by_id(uploaded.id, CreateFileMetadataByIdScope.GLOBAL, "properties",
                                                       {"status": "draft"})
out["metadata"] = [meta.template, meta.scope]
try:
    client.folders.create_folder("Project_Beta", CreateFolderParent(id="0"))
except BoxAPIError as e:
    out["conflict"] = [e.response_info.status_code, e.response_info.code,
                       e.response_info.context_info["conflicts"][0]["id"] == folder.id]
try:
    client.files.get_file_by_id("1")
except BoxAPIError as e:
    out["missing"] = [e.response_info.status_code, e.response_info.code]
client.files.delete_file_by_id(uploaded.id)
print(json.dumps(out))
'''


EXPECTED = {
    "me": "Admin User", "root": ["agent-diff-research", "chado_tea_ceremony", "cryptozoology_raw"],
    "sha1": True, "download": "second draft\n", "range": "second", "versions": [True],
    "chunked": [len(bytes(range(256)) * (21_000_000 // 256)), True],
    "found": "2001 crisis notes.txt", "slogan": True, "assigned": "Sarah Researcher", "shared": True,
    "metadata": ["properties", "global"], "conflict": [409, "item_name_in_use", True],
    "missing": [404, "not_found"]}


# Box's clients on the isolating backends; on the process backend boxsdk runs in rewrite mode
# below, and the process backend's proxying of the same HTTP stacks is its own tests'
# (test_client_matrix: requests, Node's fetch; test_drive_clients and test_calendar_clients:
# an official Python and Node client there).
@pytest.mark.parametrize("backend", ISOLATING)
def test_boxsdk_through_the_proxy(live_stack, backend):
    env = live_stack.env("box_default")
    result = live_stack.run(env, AGENT, ".py", backend=backend)
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out == EXPECTED
    assert {r.host for r in result.requests} == {"api.box.com", "upload.box.com", "dl.boxcloud.com"}
    assert {r.service for r in result.requests} == {"box"}
    added = [(row["__table__"], row.get("name") or row.get("message")) for row in result.diff.inserts]
    assert ("box_folders", "Project_Beta") in added and ("box_comments", "Que se vayan todos") in added
    assert ("box_files", "big.bin") in added
    notes = [row for row in result.diff.inserts if row.get("name") == "notes.txt" and row["__table__"] == "box_files"]
    assert [(n["item_status"], n["version_number"]) for n in notes] == [("trashed", "2")]


def test_boxsdk_in_rewrite_mode(live_stack):
    """The fallback mode: the preludes rewrite Box's three hosts, the 302's included."""
    env = live_stack.env("box_default")
    result = live_stack.run(env, AGENT, ".py", mode="rewrite")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == EXPECTED


NODE_AGENT = r'''
import { BoxClient, BoxDeveloperTokenAuth } from "box-node-sdk";
import { Readable } from "node:stream";
const client = new BoxClient({ auth: new BoxDeveloperTokenAuth({ token: "developer-token" }) });
const out = {};
out.me = (await client.users.getUserMe()).name;
const folder = await client.folders.createFolder({ name: "From node", parent: { id: "0" } });
const files = await client.uploads.uploadFile({
  attributes: { name: "hello.txt", parent: { id: folder.id } }, file: Readable.from([Buffer.from("hello from node\n")]) });
const file = files.entries[0];
const stream = await client.downloads.downloadFile(file.id);
const chunks = [];
for await (const chunk of stream) chunks.push(Buffer.from(chunk));
out.download = Buffer.concat(chunks).toString();
await client.comments.createComment({ message: "node was here", item: { id: file.id, type: "file" } });
out.search = (await client.search.searchForContent({ query: "hello" })).entries[0].name;  // names first
try {
  await client.folders.getFolderById("1");
} catch (e) {
  out.error = [e.responseInfo?.statusCode, e.responseInfo?.body?.code];  // its `code` field is JSON text
}
console.log(JSON.stringify(out));
'''


@pytest.mark.parametrize("backend", ISOLATING)
def test_box_node_sdk_through_the_proxy(live_stack, backend, request):
    result = run_node_client(live_stack, request, backend, "box-node-sdk", NODE_AGENT, "box_default")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == {"me": "Admin User", "download": "hello from node\n",
                                         "search": "hello.txt", "error": [404, "not_found"]}
    assert {r.host for r in result.requests} == {"api.box.com", "upload.box.com", "dl.boxcloud.com"}
    assert [row["message"] for row in result.diff.inserts if row["__table__"] == "box_comments"] == ["node was here"]


CURL_AGENT = r'''
set -e
auth="Authorization: Bearer $(curl -s -d grant_type=client_credentials -d client_id=i -d client_secret=s \
      -d box_subject_type=user -d box_subject_id=31847562910 https://api.box.com/oauth2/token \
      | sed 's/.*"access_token":"\([^"]*\)".*/\1/')"
curl -s -H "$auth" "https://api.box.com/2.0/users/me?fields=name"; echo
curl -s -H "$auth" -F 'attributes={"name":"curl.txt","parent":{"id":"0"}}' -F file=@/etc/hostname \
     "https://upload.box.com/api/2.0/files/content?fields=name" | head -c 0
curl -s -o /dev/null -w '%{http_code}\n' -H "$auth" "https://api.box.com/2.0/folders/5610825569"
curl -s -H "$auth" -X PUT -d '{"name": "x/y"}' "https://api.box.com/2.0/folders/0" | sed 's/.*"code":"\([a-z_]*\)".*/\1/'; echo
'''


@pytest.mark.parametrize("backend", ISOLATING)
def test_curl_through_the_proxy_acts_as_the_tokens_user(live_stack, backend):
    """A token issued for Sarah acts as Sarah: she owns what she uploads, and the admin's
    folders that no one shared with her are not there for her."""
    env = live_stack.env("box_default")
    result = live_stack.run(env, CURL_AGENT, ".sh", backend=backend)
    assert result.exit_code == 0, result.stderr
    me, hidden, root_change = result.stdout.splitlines()
    assert json.loads(me) == {"type": "user", "id": "31847562910", "name": "Sarah Researcher"}
    assert hidden == "404"
    assert root_change == "access_denied_insufficient_permissions"
    assert [(row["name"], row["owned_by_id"]) for row in result.diff.inserts if row["__table__"] == "box_files"] \
        == [("curl.txt", "31847562910")]


HUB_AND_MISSING_BYTES = r'''
import json
from box_sdk_gen import BoxClient, BoxDeveloperTokenAuth, BoxAPIError
from box_sdk_gen.schemas.v2025_r0.hub_item_operation_v2025_r0 import (HubItemOperationV2025R0,
                                                                        HubItemOperationV2025R0ActionField)
from box_sdk_gen.schemas.v2025_r0.file_reference_v2025_r0 import FileReferenceV2025R0
client = BoxClient(auth=BoxDeveloperTokenAuth(token="developer-token"))
client.hub_items.manage_hub_items_v2025_r0("999999", operations=[HubItemOperationV2025R0(
    action=HubItemOperationV2025R0ActionField.ADD, item=FileReferenceV2025R0(id="1701916585"))])
out = {"items": [i.name for i in client.hub_items.get_hub_items_v2025_r0("999999").entries]}
try:
    client.downloads.download_file("1421498350")
except BoxAPIError as e:
    out["missing"] = [e.response_info.status_code, e.response_info.code, e.response_info.body["message"]]
print(json.dumps(out))
'''


def test_hub_items_keep_item_name_and_missing_bytes_say_whose_copy_lacks_them(live_stack):
    """Hub items in AgentDiff's column (`item_name`); a file whose bytes the seed copy lacks is
    Box's 404, naming the copy, not AgentDiff's seed, as where the bytes are missing."""
    result = live_stack.run(live_stack.env("box_default"), HUB_AND_MISSING_BYTES, ".py")
    assert result.exit_code == 0, result.stderr[-2000:]
    out = json.loads(result.stdout)
    [item] = [r for r in result.diff.inserts if r["__table__"] == "box_hub_items"]
    assert item["item_name"] == out["items"][0] and "name" not in item
    status, code, message = out["missing"]
    assert (status, code) == (404, "not_found") and "copy of AgentDiff's Box seed" in message
