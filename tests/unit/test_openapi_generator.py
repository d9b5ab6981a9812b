"""The OpenAPI generator and the generic semantics a generated pack runs on, over a small
description written here (a tracker with projects, issues keyed `PROJ-12`, nested comments,
offset paging, a Jira-like error body): what the generator keeps and infers, and what the
generated pack answers through the replica app."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from typer.testing import CliRunner

from detour.apps.server import create_app
from detour.cli import app
from detour_core.paths import StatePaths
from detour_core import registry
from detour_core.registry import EXTRA_PACKS_VARIABLE
from mock_services.rest.openapi.__main__ import main
from mock_services.rest.openapi.infer import id_style, infer
from mock_services.coverage import of as coverage_of
from mock_services.rest.openapi.trim import trim
from mock_services.store import EnvironmentStore

REF = "#/components/schemas/"
PAGE = [{"name": "startAt", "in": "query", "schema": {"type": "integer"}},
        {"name": "maxResults", "in": "query", "schema": {"type": "integer"}}]
ERRORS = {"400": {"description": "bad", "content": {"application/json": {"schema": {"$ref": REF + "Errors"}}}}}


def answer(schema: dict, status: str = "200") -> dict:
    return {status: {"description": "ok", "content": {"application/json": {"schema": schema}}}, **ERRORS}


def body(schema: dict) -> dict:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


DESCRIPTION = {
    "openapi": "3.0.1", "info": {"title": "Tracker", "version": "1"},
    "servers": [{"url": "https://tracker.example.com"}],
    "paths": {
        "/rest/projects": {
            "get": {"operationId": "listProjects", "summary": "prose", "parameters": PAGE + [
                {"name": "style", "in": "query", "schema": {"type": "string"}, "description": "a filter"}],
                "responses": answer({"type": "object", "properties": {
                    "values": {"type": "array", "items": {"$ref": REF + "Project"}},
                    "startAt": {"type": "integer"}, "total": {"type": "integer"}}})},
            "post": {"operationId": "createProject", "requestBody": body({"$ref": REF + "NewProject"}),
                     "responses": answer({"$ref": REF + "Project"}, "201")}},
        "/rest/projects/{projectId}": {
            "parameters": [{"name": "projectId", "in": "path", "required": True, "schema": {"type": "integer"}}],
            "get": {"operationId": "getProject", "responses": answer({"$ref": REF + "Project"})},
            "put": {"operationId": "updateProject", "requestBody": body({"$ref": REF + "NewProject"}),
                    "responses": answer({"$ref": REF + "Project"})},
            "delete": {"operationId": "deleteProject", "responses": {"204": {"description": "gone"}}}},
        "/rest/projects/{projectId}/archive": {
            "post": {"operationId": "archiveProject", "parameters": [
                {"name": "projectId", "in": "path", "required": True, "schema": {"type": "integer"}}],
                "responses": {"204": {"description": "done"}, **ERRORS}}},
        "/rest/projects/{projectId}/comments": {
            "parameters": [{"name": "projectId", "in": "path", "required": True, "schema": {"type": "integer"}}],
            "get": {"operationId": "listComments", "parameters": PAGE,
                    "responses": answer({"type": "object", "properties": {
                        "values": {"type": "array", "items": {"$ref": REF + "Comment"}}}})},
            "post": {"operationId": "addComment", "requestBody": body({"type": "object", "required": ["body"],
                                                                         "properties": {"body": {"type": "string"}}}),
                     "responses": answer({"$ref": REF + "Comment"}, "201")}},
        "/rest/projects/{projectId}/comments/{commentId}": {
            "parameters": [{"name": "projectId", "in": "path", "required": True, "schema": {"type": "integer"}},
                           {"name": "commentId", "in": "path", "required": True, "schema": {"type": "string"}}],
            "get": {"operationId": "getComment", "responses": answer({"$ref": REF + "Comment"})}},
        "/rest/serverInfo": {"get": {"operationId": "getServerInfo", "responses": answer({"$ref": REF + "Server"})}},
    },
    "components": {"schemas": {
        "NewProject": {"type": "object", "required": ["name"], "additionalProperties": False, "properties": {
            "name": {"type": "string", "maxLength": 40}, "style": {"type": "string", "enum": ["kanban", "scrum"]},
            "lead": {"type": "string", "format": "email"}}},
        "Project": {"type": "object", "required": ["id", "name", "style", "archived"], "properties": {
            "id": {"type": "integer", "example": 10000}, "name": {"type": "string"},
            "style": {"type": "string", "enum": ["kanban", "scrum"]}, "archived": {"type": "boolean"},
            "lead": {"type": "string", "nullable": True}, "created": {"type": "string", "format": "date-time"}}},
        "Comment": {"type": "object", "required": ["id", "body"], "properties": {
            "id": {"type": "string", "format": "uuid"}, "body": {"type": "string"}}},
        "Errors": {"type": "object", "properties": {"errorMessages": {"type": "array", "items": {"type": "string"}},
                                                     "errors": {"type": "object", "additionalProperties": {
                                                         "type": "string"}},
                                                     "status": {"type": "integer"}}},
        "Server": {"type": "object", "required": ["version", "deploymentType"], "properties": {
            "version": {"type": "string"}, "deploymentType": {"type": "string", "enum": ["Cloud", "Server"]}}},
        "Unused": {"type": "object", "description": "never referenced"}}},
}


def test_trim_keeps_shapes_and_drops_prose_and_unused_schemas():
    trimmed = trim(DESCRIPTION)
    assert "Unused" not in trimmed["components"]["schemas"]
    text = json.dumps(trimmed)
    assert "prose" not in text and "a filter" not in text
    listed = trimmed["paths"]["/rest/projects/{projectId}"]["get"]
    assert [p["name"] for p in listed["parameters"]] == ["projectId"]  # path-level parameters carried down
    assert trim(DESCRIPTION, r"^/rest/projects$")["paths"].keys() == {"/rest/projects"}
    with pytest.raises(ValueError, match="not an OpenAPI 3"):
        trim({"swagger": "2.0", "paths": {}})


def test_the_model_reads_collections_items_nesting_paging_filters_and_errors():
    model = infer("tracker", trim(DESCRIPTION))
    projects, comments = model["resources"]["tracker_projects"], model["resources"]["tracker_projects_comments"]
    assert (projects["item"], projects["key"], projects["id"]) == \
        ("/rest/projects/{projectId}", "projectId", {"kind": "numeric", "digits": 5, "as": "integer"})
    assert (comments["parent"], comments["parent_key"], comments["id"]) == \
        ("tracker_projects", "projectId", {"kind": "uuid"})
    actions = {o: e["action"] for o, e in model["operations"].items()}
    assert actions == {"listProjects": "list", "createProject": "create", "getProject": "read",
                       "updateProject": "update", "deleteProject": "delete", "archiveProject": None,
                       "listComments": "list", "addComment": "create", "getComment": "read", "getServerInfo": None}
    listing = model["operations"]["listProjects"]
    assert (listing["paging"], listing["page_size"], listing["items"], listing["filters"]) == \
        ("offset", "maxResults", "values", {"style": "style"})
    assert model["error"] == {"errorMessages": ["{message}"], "errors": {}, "status": "{status}"}


@pytest.mark.parametrize(("example", "style"), [
    ("cus_NffrFeUfNV2Hib", {"kind": "prefix", "prefix": "cus_", "length": 14}),
    ("PROJ-12", {"kind": "key"}), (10001, {"kind": "numeric", "digits": 5, "as": "integer"}),
    ("7f1c7d2e-5a3b-4c1d-9e8f-0a1b2c3d4e5f", {"kind": "uuid"})])
def test_id_styles_come_from_the_vendors_examples(example, style):
    assert id_style(example, {}) == style


@pytest.fixture(scope="module")
def tracker(tmp_path_factory, monkeypatch_module):
    """The pack generated into a package of a temporary folder, registered as an extra pack."""
    root = tmp_path_factory.mktemp("packs")
    source = root / "tracker.json"
    source.write_text(json.dumps(DESCRIPTION))
    main(["tracker", str(source), "--out", str(root / "tracker_pack")])
    monkeypatch_module.syspath_prepend(str(root))
    monkeypatch_module.setenv(EXTRA_PACKS_VARIABLE, "tracker_pack/spec/pack.json")
    state = StatePaths(root / "home").ensure()
    client = TestClient(create_app(state, api_auth=False), raise_server_exceptions=False)
    env = EnvironmentStore(state).create("tracker_default").env_id
    yield client, f"/api/env/{env}/services/tracker/rest"
    for module in [m for m in sys.modules if m.startswith("tracker_pack")]:
        del sys.modules[module]


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def test_the_generator_writes_a_pack(tracker, tmp_path):
    folder = registry.pack("tracker").templates.parent
    assert {p.name for p in folder.iterdir()} == {"__init__.py", "spec", "templates"}  # data: no Python of its own
    assert {p.name for p in (folder / "spec").iterdir()} == {"openapi.json", "model.json", "pack.json"}
    pack = registry.pack("tracker")
    assert (pack.hosts, pack.tables) == (("tracker.example.com",), ("tracker_projects", "tracker_projects_comments"))
    with pytest.raises(SystemExit, match="no description"):
        main(["x", str(tmp_path / "missing.json")])
    (tmp_path / "bad.yaml").write_text("openapi: [unclosed")
    with pytest.raises(SystemExit, match="cannot generate from .*bad.yaml: not YAML"):
        main(["x", str(tmp_path / "bad.yaml"), "--out", str(tmp_path / "x")])
    with pytest.raises(SystemExit, match="--rename names no table of the model: tracker_nope"):
        main(["x", str(folder.parent / "tracker.json"), "--rename", "tracker_nope=y", "--out", str(tmp_path / "x")])
    (tmp_path / "swagger.json").write_text('{"swagger": "2.0", "paths": {}}')
    with pytest.raises(SystemExit, match="not an OpenAPI 3.x description"):
        main(["x", str(tmp_path / "swagger.json"), "--out", str(tmp_path / "x")])


def test_create_read_update_list_delete(tracker):
    client, base = tracker
    made = client.post(f"{base}/projects", json={"name": "Apollo", "style": "scrum"})
    assert made.status_code == 201
    project = made.json()
    assert isinstance(project["id"], int) and project["archived"] is False and project["created"].endswith("Z")
    assert client.get(f"{base}/projects/{project['id']}").json() == project
    client.post(f"{base}/projects", json={"name": "Gemini"})
    changed = client.put(f"{base}/projects/{project['id']}", json={"name": "Apollo 11", "style": "scrum"}).json()
    assert changed["name"] == "Apollo 11"
    page = client.get(f"{base}/projects", params={"maxResults": 1}).json()
    assert (len(page["values"]), page["total"], page["startAt"]) == (1, 2, 0)
    assert [p["name"] for p in client.get(f"{base}/projects", params={"style": "scrum"}).json()["values"]] == \
        ["Apollo 11"]
    assert client.delete(f"{base}/projects/{project['id']}").status_code == 204
    gone = client.get(f"{base}/projects/{project['id']}")
    assert gone.status_code == 404 and gone.json()["errorMessages"][0].startswith("No such")


def test_nested_collections_belong_to_their_parent(tracker):
    client, base = tracker
    project = client.post(f"{base}/projects", json={"name": "Mercury"}).json()
    comment = client.post(f"{base}/projects/{project['id']}/comments", json={"body": "go"}).json()
    assert len(comment["id"]) == 36
    assert client.get(f"{base}/projects/{project['id']}/comments/{comment['id']}").status_code == 200
    assert client.get(f"{base}/projects/{project['id']}/comments").json()["values"][0]["body"] == "go"
    other = client.post(f"{base}/projects", json={"name": "Vostok"}).json()
    assert client.get(f"{base}/projects/{other['id']}/comments/{comment['id']}").status_code == 404
    assert client.post(f"{base}/projects/999/comments", json={"body": "x"}).status_code == 404


def test_bodies_are_checked_against_the_description_in_the_vendors_error_shape(tracker):
    client, base = tracker
    missing = client.post(f"{base}/projects", json={"style": "scrum"})
    assert missing.status_code == 400
    assert missing.json() == {"errorMessages": ["Missing required param: name."], "errors": {}, "status": 400}
    unknown = client.post(f"{base}/projects", json={"name": "x", "colour": "red"}).json()
    assert unknown["errorMessages"] == ["Received unknown parameter: colour"]
    wrong = client.post(f"{base}/projects", json={"name": "x", "style": "waterfall"}).json()
    assert wrong["errorMessages"] == ["Invalid style: must be one of kanban, scrum"]


def test_unmodeled_operations_say_so_in_the_vendors_shape(tracker):
    client, base = tracker
    project = client.post(f"{base}/projects", json={"name": "Skylab"}).json()
    answer = client.post(f"{base}/projects/{project['id']}/archive")
    assert answer.status_code == 501
    assert "does not model archiveProject (POST /rest/projects/{projectId}/archive)" in \
        answer.json()["errorMessages"][0]


def test_coverage_is_counted_from_the_pack_and_each_kind_answers_as_it_says(tracker):
    """Stateful (the model's actions), generated (a read outside every kept resource: its
    description's plainest answer) and not served (the verb above), and `detour services` counts them."""
    client, base = tracker
    coverage = coverage_of(registry.pack("tracker"))
    assert {o: k for o, k in coverage.items() if k != "stateful"} == \
        {"tracker.getServerInfo": "generated", "tracker.archiveProject": "not served"}
    assert len(coverage) == 10
    before = client.get(f"{base}/projects").json()["total"]
    assert client.get(f"{base}/serverInfo").json() == {"version": "", "deploymentType": "Cloud"}
    assert client.get(f"{base}/projects").json()["total"] == before
    listed = CliRunner().invoke(app, ["services", "--json"])
    assert listed.exit_code == 0, listed.output
    row = next(r for r in json.loads(listed.output) if r["service"] == "tracker")
    assert (row["stateful"], row["generated"], row["not served"], row["hosts"]) == (8, 1, 1, ["tracker.example.com"])
    assert {r["service"] for r in json.loads(listed.output)} == set(registry.service_names())
    assert all(isinstance(r[kind], int) for r in json.loads(listed.output) for kind in ("stateful", "not served"))
