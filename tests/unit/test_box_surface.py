"""The Box replica against Box's official SDK: the committed spec is what the installed
box_sdk_gen's managers and schemas say, every operation of it is routed and answered, and
every modeled operation, called as the SDK calls it on a world of seeded and created items,
answers with the fields of the SDK's model for it (or in Box's error shape, never a 500)."""

from __future__ import annotations

import json
import re

import pytest
from fastapi.testclient import TestClient

from detour.apps.server import create_app
from mock_services.box.generate_spec import generate, package_root
from mock_services.box.handlers import MODELED
from mock_services.box.router import API, SPEC_FILE
from mock_services.rest.router import Engine
from mock_services.store import EnvironmentStore

AUTH = {"Authorization": "Bearer developer-token", "box-version": "2025.0"}
ADMIN, SARAH, LAB = "27512847635", "31847562910", "3578701092"
SEEDED = {"file_id": "1701916585", "folder_id": "3578701092", "comment_id": "7404947855", "task_id": "3121597301",
          "hub_id": "777777", "user_id": SARAH, "scope": "global", "template_key": "properties"}
# The request bodies the SDK sends, per operation (the rest send none or `{}`).
BODIES = {
    "folders.create_folder": {"name": "Shape", "parent": {"id": "0"}},
    "folders.update_folder_by_id": {"description": "shape"},
    "folders.copy_folder": {"parent": {"id": "0"}, "name": "Shape copy"},
    "files.update_file_by_id": {"description": "shape"}, "files.copy_file": {"parent": {"id": "0"}, "name": "c.txt"},
    "comments.create_comment": {"message": "shape", "item": {"type": "file", "id": "1701916585"}},
    "comments.update_comment_by_id": {"message": "shape"},
    "tasks.create_task": {"item": {"type": "file", "id": "1701916585"}, "message": "shape"},
    "tasks.update_task_by_id": {"message": "shape"},
    "task_assignments.create_task_assignment": {"task": {"id": "{task_id}", "type": "task"},
                                                "assign_to": {"id": SARAH}},
    "task_assignments.update_task_assignment_by_id": {"message": "done"},
    "user_collaborations.create_collaboration": {"item": {"type": "folder", "id": "4023537767"},
                                                 "accessible_by": {"type": "user", "id": "45928173064"},
                                                 "role": "viewer"},
    "user_collaborations.update_collaboration_by_id": {"role": "editor"},
    "web_links.create_web_link": {"url": "https://example.test/", "parent": {"id": "0"}, "name": "Shape link"},
    "web_links.update_web_link_by_id": {"description": "shape"},
    "shared_links_files.add_share_link_to_file": {"shared_link": {"access": "open"}},
    "shared_links_folders.add_share_link_to_folder": {"shared_link": {"access": "open"}},
    "shared_links_web_links.add_share_link_to_web_link": {"shared_link": {"access": "open"}},
    "groups.create_group": {"name": "Shape group"}, "groups.update_group_by_id": {"description": "shape"},
    "memberships.create_group_membership": {"user": {"id": SARAH}, "group": {"id": "{group_id}"}},
    "memberships.update_group_membership_by_id": {"role": "admin"},
    "users.create_user": {"name": "Shape User", "login": "shape@example.com"}, "users.update_user_by_id": {"job_title": "x"},
    "file_metadata.create_file_metadata_by_id": {"k": "v"}, "folder_metadata.create_folder_metadata_by_id": {"k": "v"},
    "file_metadata.update_file_metadata_by_id": [{"op": "replace", "path": "/k", "value": "w"}],
    "folder_metadata.update_folder_metadata_by_id": [{"op": "replace", "path": "/k", "value": "w"}],
    "metadata_templates.create_metadata_template": {"scope": "enterprise", "displayName": "Other Template"},
    "hubs.create_hub_v2025_r0": {"title": "Shape hub"}, "hubs.update_hub_by_id_v2025_r0": {"description": "x"},
    "hubs.copy_hub_v2025_r0": {"title": "Shape hub copy"},
    "hub_items.manage_hub_items_v2025_r0": {"operations": [{"action": "add", "item": {"type": "file",
                                                                                      "id": "1701916585"}}]},
    "file_versions.promote_file_version": {"id": "{file_version_id}", "type": "file_version"},
    "file_versions.update_file_version_by_id": {"trashed_at": None},
    "chunked_uploads.create_file_upload_session": {"folder_id": "0", "file_size": 20_000_001, "file_name": "s.bin"},
    "chunked_uploads.create_file_upload_session_for_existing_file": {"file_size": 20_000_001},
    "folder_locks.create_folder_lock": {"folder": {"id": "3578701092", "type": "folder"},
                                        "locked_operations": {"move": True, "delete": True}},
    "file_watermarks.update_file_watermark": {"watermark": {"imprint": "default"}},
    "folder_watermarks.update_folder_watermark": {"watermark": {"imprint": "default"}},
    "webhooks.create_webhook": {"target": {"type": "folder", "id": "4023537767"}, "address": "https://hook.test/x",
                                "triggers": ["FILE.UPLOADED"]},
    "webhooks.update_webhook_by_id": {"triggers": ["FILE.DELETED"]},
    "zip_downloads.create_zip_download": {"items": [{"type": "folder", "id": "4023537767"}],
                                          "download_file_name": "logs"},
    "uploads.preflight_file_upload_check": {"name": "pre.txt", "size": 3, "parent": {"id": "0"}},
    "authorization.request_access_token": "grant_type=client_credentials&client_id=i&client_secret=s",
    "authorization.refresh_access_token": "grant_type=refresh_token&refresh_token=r",
}
QUERIES = {"search.search_for_content": {"query": "humidity"}, "folder_locks.get_folder_locks": {"folder_id": LAB}, "hub_items.get_hub_items_v2025_r0": {"hub_id": "777777"},
           "folders.delete_folder_by_id": {"recursive": "true"}, "list_collaborations.get_collaborations":
           {"status": "pending"}}
MODELS = API.spec.schemas
OPEN_MODELS = {"Metadata", "MetadataFull"}  # an instance's template fields are its own top-level keys


def fields_of(model: str) -> dict[str, str]:
    """A model's JSON fields; a union's are any of its members'."""
    schema = MODELS.get(model, {})
    if "union" in schema:
        merged: dict[str, str] = {}
        for member in schema["union"]:
            merged |= fields_of(member)
        return merged
    return schema.get("fields", {})


def strays(value: object, model: str, path: str = "") -> list[str]:
    """Fields of `value` that the SDK's model does not have, through nested models (a union's
    value fits one of its members)."""
    if model not in MODELS or not isinstance(value, dict) or model in OPEN_MODELS:
        return []
    if "union" in MODELS[model]:
        return min((strays(value, member, path) for member in MODELS[model]["union"]), key=len)
    known = fields_of(model)
    found = []
    for name, item in value.items():
        if name not in known:
            found.append(f"{path}.{name}")
            continue
        inner = re.sub(r"^Optional\[(.*)\]$", r"\1", known[name])
        inner = re.sub(r"^List\[(.*)\]$", r"\1", inner)
        for element in item if isinstance(item, list) else [item]:
            found += strays(element, inner, f"{path}.{name}")
    return found


def caller(client: TestClient, env: str):
    """A call to the environment's Box replica, as the SDK sends it."""
    base = f"/api/env/{env}/services/box"

    def call(method: str, path: str, **kwargs):
        return client.request(method, f"{base}/{path}", headers={**AUTH, **kwargs.pop("headers", {})}, **kwargs)
    return call


@pytest.fixture
def world(module_state, seeded):
    """The world, forked for the test: what it does stays its own."""
    client, env, ids = seeded
    [fork] = EnvironmentStore(module_state).fork(env)
    return caller(client, fork.env_id), ids


@pytest.fixture(scope="module")
def seeded(module_state):
    """An environment from box_default with one of everything the operations act on, made once
    for the module (some twenty calls; each test gets a fork of it)."""
    env = EnvironmentStore(module_state).create("box_default").env_id
    client = TestClient(create_app(module_state, api_auth=False), raise_server_exceptions=False)
    call = caller(client, env)
    ids = dict(SEEDED)
    ids["group_id"] = call("POST", "2.0/groups", json={"name": "World"}).json()["id"]
    ids["group_membership_id"] = call("POST", "2.0/group_memberships", json={
        "user": {"id": SARAH}, "group": {"id": ids["group_id"]}}).json()["id"]
    ids["collaboration_id"] = call("POST", "2.0/collaborations", json={
        "item": {"type": "folder", "id": ids["folder_id"]}, "accessible_by": {"type": "user", "id": SARAH},
        "role": "editor"}).json()["id"]
    ids["task_assignment_id"] = call("POST", "2.0/task_assignments", json={
        "task": {"id": ids["task_id"]}, "assign_to": {"id": ADMIN}}).json()["id"]
    ids["web_link_id"] = call("POST", "2.0/web_links", json={"url": "https://a.test/", "parent": {"id": "0"}}).json()["id"]
    first = call("POST", "api/2.0/files/content", files={
        "attributes": (None, json.dumps({"name": "v.txt", "parent": {"id": "0"}})), "file": ("v.txt", b"one")}).json()
    ids["file_version_id"] = first["entries"][0]["file_version"]["id"]
    call("POST", f"api/2.0/files/{first['entries'][0]['id']}/content", files={
        "attributes": (None, "{}"), "file": ("v.txt", b"two")})
    ids["versioned_file_id"] = first["entries"][0]["id"]
    call("POST", f"2.0/files/{ids['file_id']}/metadata/global/properties", json={"k": "v"})
    call("POST", f"2.0/folders/{ids['folder_id']}/metadata/global/properties", json={"k": "v"})
    template = call("POST", "2.0/metadata_templates/schema", json={
        "scope": "enterprise", "displayName": "Shape Template", "fields": [{"type": "string", "key": "k", "displayName": "K"}]})
    ids["template_id"] = template.json()["id"]
    ids["upload_session_id"] = call("POST", "api/2.0/files/upload_sessions", json=BODIES[
        "chunked_uploads.create_file_upload_session"]).json()["id"]
    ids["trashed"] = {}
    for kind, key in (("files", "1172138282"), ("folders", "7983826892"), ("web_links", ids["web_link_id"])):
        made = call("POST", "2.0/web_links", json={"url": "https://t.test/", "parent": {"id": "0"}, "name": "t"}) \
            if kind == "web_links" else None
        target = made.json()["id"] if made else key
        call("DELETE", f"2.0/{kind}/{target}", params={"recursive": "true"})
        ids["trashed"][kind] = target
    ids["collection_id"] = call("GET", "2.0/collections").json()["entries"][0]["id"]
    ids["folder_lock_id"] = call("POST", "2.0/folder_locks", json=BODIES["folder_locks.create_folder_lock"]).json()["id"]
    ids["webhook_id"] = call("POST", "2.0/webhooks", json={**BODIES["webhooks.create_webhook"],
                                                          "address": "https://hook.test/world"}).json()["id"]
    for kind, item in (("files", ids["file_id"]), ("folders", ids["folder_id"])):
        call("PUT", f"2.0/{kind}/{item}/watermark", json={"watermark": {"imprint": "default"}})
    return client, env, ids


def test_the_committed_spec_is_the_installed_sdk():
    assert SPEC_FILE.read_text() == generate(package_root()), \
        "run: python -m mock_services.box.generate_spec " + str(SPEC_FILE)


def test_every_operation_is_routed_and_answered():
    engine = Engine(API)
    assert len(API.spec.operations) >= 300 and API.missing() == []
    for operation in API.spec.operations:
        path = re.sub(r"\{[^}]+\}", "123", operation.path)
        matched, _ = engine.match(operation.method, path)
        assert (matched.method, matched.path) == (operation.method, operation.path), operation.id
    families = {o.short_id.split(".")[0] for o in API.spec.operations if o.short_id in MODELED}
    assert {"folders", "files", "uploads", "chunked_uploads", "downloads", "file_versions", "comments", "tasks",
            "task_assignments", "user_collaborations", "list_collaborations", "web_links", "collections",
            "search", "users", "groups", "memberships", "file_metadata", "folder_metadata", "metadata_templates",
            "hubs", "hub_items", "events", "trashed_files", "trashed_folders", "trashed_items",
            "trashed_web_links", "shared_links_files", "shared_links_folders", "shared_links_web_links",
            "authorization", "recent_items", "folder_locks", "webhooks", "zip_downloads", "file_watermarks",
            "folder_watermarks"} <= families


def _path(operation, ids: dict) -> str:
    path = operation.path
    family = operation.short_id.split(".")[0]
    for name in re.findall(r"\{([^}]+)\}", path):
        value = ids.get(name, "1")
        if family.startswith("trashed_"):
            value = ids["trashed"].get(path.split("/")[1], value)
        if family == "file_versions" and name == "file_id":
            value = ids["versioned_file_id"]
        if operation.short_id.startswith(("file_metadata.create", "folder_metadata.create")) and name.endswith("_id"):
            value = ids["versioned_file_id"] if name == "file_id" else "4023537767"  # items without an instance
        if name == "template_key" and "metadata_templates" in path:
            value = "ShapeTemplate"
        if name == "scope" and "metadata_templates" in path:
            value = "enterprise"
        path = path.replace("{" + name + "}", value)
    return path


def _query(operation) -> dict:
    required = {p.name: "shared_link" if p.name == "fields" else p.enum[0] if p.enum else "1"
                for p in operation.required() if p.location == "query"}
    return {**required, **QUERIES.get(operation.short_id, {})}


def _body(operation, ids: dict):
    body = BODIES.get(operation.short_id)
    if isinstance(body, dict | list):
        return {"json": json.loads(json.dumps(body).replace("{task_id}", ids["task_id"])
                                   .replace("{group_id}", ids["group_id"])
                                   .replace("{file_version_id}", ids["file_version_id"]))}
    if isinstance(body, str):
        return {"content": body, "headers": {"Content-Type": "application/x-www-form-urlencoded"}}
    return {}


UNCALLABLE_HERE = {  # modeled, but need what a single call cannot carry here (tested with the SDK in e2e)
    "uploads.upload_file", "uploads.upload_file_version", "chunked_uploads.upload_file_part",
    "chunked_uploads.create_file_upload_session_commit", "files.get_file_thumbnail_by_id",
    "shared_links_files.find_file_for_shared_link", "shared_links_folders.find_folder_for_shared_link",
    "shared_links_web_links.find_web_link_for_shared_link", "users.delete_user_by_id"}


@pytest.mark.parametrize("operation", [o for o in API.spec.operations if o.short_id in MODELED
                                       and o.short_id not in UNCALLABLE_HERE], ids=lambda o: o.id)
def test_every_modeled_operation_answers_in_the_sdks_shape(world, operation):
    call, ids = world
    response = call(operation.method, _path(operation, ids), params=_query(operation), follow_redirects=False,
                    **_body(operation, ids))
    assert response.status_code in (200, 201, 202, 204, 302), response.text
    if operation.response and response.status_code in (200, 201, 202):
        assert strays(response.json(), operation.response) == []


@pytest.mark.parametrize("operation", [o for o in API.spec.operations
                                       if API.handlers[o.short_id] not in MODELED.values()][:40],
                         ids=lambda o: o.id)
def test_operations_not_modeled_say_so_in_boxs_shape(world, operation):
    call, ids = world
    response = call(operation.method, _path(operation, ids), params=_query(operation))
    error = response.json()
    assert (response.status_code, error["type"], error["code"]) == (501, "error", "not_implemented")
    assert "replica does not model box." in error["message"]


def test_errors_are_boxs_shape(world):
    call, _ = world
    cases = [("GET", "2.0/files/1", {}, 404, "not_found"),
             ("GET", "2.0/folders/0/items?limit=x", {}, 400, "bad_request"),
             ("GET", "2.0/folders/0/items?sort=sideways", {}, 400, "bad_request"),
             ("POST", "2.0/folders", {"json": {"name": "a/b", "parent": {"id": "0"}}}, 400, "bad_request"),
             ("POST", "2.0/folders", {"json": {"name": "investments", "parent": {"id": "0"}}}, 409, "item_name_in_use"),
             ("PUT", "2.0/files/1701916585", {"json": {"name": "x"}, "headers": {"if-match": "9"}}, 412,
              "precondition_failed"),
             ("POST", "2.0/folders", {"content": b"{not json", "headers": {"Content-Type": "application/json"}}, 400,
              "bad_request"),
             ("GET", "2.0/no/such/path", {}, 404, "not_found")]
    for method, path, extra, status, code in cases:
        response = call(method, path, **extra)
        error = response.json()
        assert (response.status_code, error["type"], error["status"], error["code"]) == (status, "error", status, code), path
        assert error["message"] and error["request_id"]
