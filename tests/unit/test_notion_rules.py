"""Notion's rules that its pack's overrides keep, in process: the block tree (children where a
type can hold them, in order, after a sibling, nested, trashed and restored, a type that never
changes), a page's parent that must exist and decides its properties, a data source's query
(filters, sorts, cursors), the Notion-Version header and a token on every request, Notion's
error shape for each refusal, and the seed read back as the description says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from detour.apps.server import create_app
import mock_services.notion
from detour_core.paths import StatePaths
from mock_services.notion.build_seed import notion_id
from mock_services.rest.openapi.schemas import Schemas
from mock_services.store import EnvironmentStore

HEADERS = {"Authorization": "Bearer secret_detour", "Notion-Version": "2025-09-03"}
WIKI = notion_id("page:engineering")
TASKS = notion_id("data_source:tasks")
NOWHERE = "00000000-0000-4000-8000-000000000000"


class Notion:
    def __init__(self, client: TestClient, base: str) -> None:
        self.client, self.base = client, base

    def __call__(self, method: str, path: str, body: dict | None = None, status: int = 200,
                 headers: dict | None = None) -> dict:
        answer = self.client.request(method, self.base + path, json=body, headers=HEADERS if headers is None
                                     else headers)
        assert answer.status_code == status, answer.text
        return answer.json()


@pytest.fixture
def notion(tmp_path):
    state = StatePaths(tmp_path).ensure()
    client = TestClient(create_app(state, api_auth=False), raise_server_exceptions=False)
    return Notion(client, f"/api/env/{EnvironmentStore(state).create('notion_default').env_id}/services/notion/v1")


def text(content: str) -> dict:
    return {"rich_text": [{"text": {"content": content}}]}


def refused(answer: dict, status: int, code: str) -> None:
    assert (answer["object"], answer["status"], answer["code"]) == ("error", status, code)
    assert answer["message"]


def test_every_request_names_its_version_and_carries_a_token(notion):
    refused(notion("GET", "/users/me", status=400, headers={"Authorization": "Bearer x"}), 400, "missing_version")
    refused(notion("GET", "/users/me", status=401, headers={"Notion-Version": "2025-09-03"}), 401, "unauthorized")
    old = {**HEADERS, "Notion-Version": "2021-05-13"}
    refused(notion("GET", "/users/me", status=400, headers=old), 400, "validation_error")
    refused(notion("GET", "/comments", status=404), 404, "invalid_request_url")
    assert notion("GET", "/users/me")["type"] == "bot"


def test_the_block_tree(notion):
    page = notion("POST", "/pages", {"parent": {"page_id": WIKI},
                                     "properties": {"title": {"title": [{"text": {"content": "Plan"}}]}}})
    first, last = notion("PATCH", f"/blocks/{page['id']}/children",
                         {"children": [{"paragraph": text("one")}, {"paragraph": text("three")}]})["results"]
    notion("PATCH", f"/blocks/{page['id']}/children", {"children": [{"paragraph": text("two")}],
                                                         "position": {"type": "after_block",
                                                                      "after_block": {"id": first["id"]}}})
    listed = notion("GET", f"/blocks/{page['id']}/children")["results"]
    assert [b["paragraph"]["rich_text"][0]["plain_text"] for b in listed] == ["one", "two", "three"]
    nested = notion("PATCH", f"/blocks/{last['id']}/children",
                    {"children": [{"toggle": {**text("more"), "children": [{"to_do": text("deep")}]}}]})["results"][0]
    assert notion("GET", f"/blocks/{last['id']}")["has_children"] is True
    assert notion("GET", f"/blocks/{nested['id']}/children")["results"][0]["type"] == "to_do"
    divider = notion("PATCH", f"/blocks/{page['id']}/children", {"children": [{"divider": {}}]})["results"][0]
    refused(notion("PATCH", f"/blocks/{divider['id']}/children", {"children": [{"paragraph": text("x")}]},
                   status=400), 400, "validation_error")
    refused(notion("PATCH", f"/blocks/{first['id']}", {"to_do": text("x")}, status=400), 400, "validation_error")
    too_many = {"children": [{"paragraph": text(str(i))} for i in range(101)]}
    refused(notion("PATCH", f"/blocks/{page['id']}/children", too_many, status=400), 400, "validation_error")
    refused(notion("PATCH", f"/blocks/{NOWHERE}/children", {"children": []}, status=404), 404, "object_not_found")

    assert notion("DELETE", f"/blocks/{last['id']}")["in_trash"] is True
    assert len(notion("GET", f"/blocks/{page['id']}/children")["results"]) == 3
    refused(notion("PATCH", f"/blocks/{last['id']}/children", {"children": [{"paragraph": text("x")}]},
                   status=400), 400, "validation_error")
    assert notion("PATCH", f"/blocks/{last['id']}", {"in_trash": False})["in_trash"] is False
    assert len(notion("GET", f"/blocks/{page['id']}/children")["results"]) == 4

    wiki = notion("GET", f"/blocks/{WIKI}/children")["results"]
    assert wiki[-1]["id"] == page["id"] and wiki[-1]["child_page"] == {"title": "Plan"}
    notion("DELETE", f"/blocks/{page['id']}")
    assert notion("GET", f"/pages/{page['id']}")["in_trash"] is True


def test_a_pages_parent_must_exist_and_decides_its_properties(notion):
    refused(notion("POST", "/pages", {"parent": {"page_id": NOWHERE}, "properties": {}}, status=404),
            404, "object_not_found")
    refused(notion("POST", "/pages", {"parent": {"database_id": NOWHERE}, "properties": {}}, status=404),
            404, "object_not_found")
    refused(notion("POST", "/pages", {"parent": {"page_id": WIKI}, "properties": {"Status": {"status": {
        "name": "Done"}}}}, status=400), 400, "validation_error")
    refused(notion("POST", "/pages", {"parent": {"data_source_id": TASKS}, "properties": {"Points": {
        "rich_text": []}}}, status=400), 400, "validation_error")
    refused(notion("POST", "/pages", {"parent": {"data_source_id": TASKS}, "properties": {"Status": {
        "status": {"name": "Someday"}}}}, status=400), 400, "validation_error")
    database = notion("GET", f"/data_sources/{TASKS}")["parent"]["database_id"]
    made = notion("POST", "/pages", {"parent": {"database_id": database}, "properties": {
        "Name": {"title": [{"text": {"content": "Ship it"}}]}, "Tags": {"multi_select": [{"name": "launch"}]}}})
    assert made["parent"] == {"type": "data_source_id", "data_source_id": TASKS, "database_id": database}
    assert made["properties"]["Status"]["status"] is None  # every property of its schema, unset ones empty
    tags = notion("GET", f"/data_sources/{TASKS}")["properties"]["Tags"]["multi_select"]["options"]
    assert "launch" in [t["name"] for t in tags]  # a new option, as Notion adds it
    notion("PATCH", f"/pages/{made['id']}", {"in_trash": True})
    refused(notion("PATCH", f"/pages/{made['id']}", {"properties": {"Points": {"number": 1}}}, status=400),
            400, "validation_error")
    assert notion("PATCH", f"/pages/{made['id']}", {"in_trash": False})["in_trash"] is False


def test_a_data_source_query_filters_sorts_and_pages(notion):
    def names(answer: dict) -> list[str]:
        return [p["properties"]["Name"]["title"][0]["plain_text"] for p in answer["results"]]
    query = f"/data_sources/{TASKS}/query"
    high = notion("POST", query, {"filter": {"or": [{"property": "Priority", "select": {"equals": "High"}},
                                                    {"property": "Points", "number": {"greater_than": 4}}]},
                                  "sorts": [{"property": "Name", "direction": "ascending"}]})
    assert names(high) == ["Design the new onboarding flow", "ENG-5 checkout fails for saved cards",
                           "Renewal call with Globex"]
    assert names(notion("POST", query, {"filter": {"property": "Name", "title": {"contains": "eng-5"}}})) == [
        "ENG-5 checkout fails for saved cards"]
    assert names(notion("POST", query, {"filter": {"property": "Due", "date": {"is_empty": True}}})) == [
        "Upgrade the Postgres cluster"]
    assert names(notion("POST", query, {"filter": {"property": "Tags", "multi_select": {"contains": "design"}}})) \
        == ["Design the new onboarding flow"]
    first = notion("POST", query, {"page_size": 3, "sorts": [{"property": "Due", "direction": "ascending"}]})
    second = notion("POST", query, {"page_size": 3, "start_cursor": first["next_cursor"],
                                    "sorts": [{"property": "Due", "direction": "ascending"}]})
    assert (first["has_more"], second["has_more"], second["next_cursor"]) == (True, False, None)
    assert names(first)[0] == "Renewal call with Globex" and names(second)[-1] == "Upgrade the Postgres cluster"
    refused(notion("POST", query, {"filter": {"property": "Colour", "select": {"equals": "red"}}}, status=400),
            400, "validation_error")
    legacy = notion("POST", f"/databases/{notion('GET', f'/data_sources/{TASKS}')['parent']['database_id']}/query",
                    {"page_size": 1})
    assert len(legacy["results"]) == 1 and legacy["has_more"] is True


def test_the_seed_reads_back_as_the_description_says(notion):
    """Every seeded page, block (and its children), database, data source and user, read through
    the API, is the full object the description derived from the client's types gives (not its
    partial form, which any object with an id would pass)."""
    document = json.loads((Path(mock_services.notion.__file__).parent / "spec" / "openapi.json").read_text())
    schemas = Schemas(document)

    def described(answers: list[dict], name: str) -> None:
        for answer in answers:
            assert schemas.valid(answer, {"$ref": f"#/components/schemas/{name}"}), (name, answer)
    found = notion("POST", "/search", {})["results"]
    for item in found:
        if item["object"] == "page":
            described([item, notion("GET", f"/pages/{item['id']}")], "PageObjectResponse")
            children = notion("GET", f"/blocks/{item['id']}/children")["results"]
            nested = [b for c in children for b in notion("GET", f"/blocks/{c['id']}/children")["results"]]
            described([notion("GET", f"/blocks/{item['id']}"), *children, *nested], "BlockObjectResponse")
        else:
            described([item, notion("GET", f"/data_sources/{item['id']}")], "DataSourceObjectResponse")
            described([notion("GET", f"/databases/{item['parent']['database_id']}")], "DatabaseObjectResponse")
            described(notion("POST", f"/data_sources/{item['id']}/query", {})["results"], "PageObjectResponse")
    described([*notion("GET", "/users")["results"], notion("GET", "/users/me")], "UserObjectResponse")
    assert len(found) == 8


def test_lists_page_by_cursor(notion):
    first = notion("GET", f"/blocks/{WIKI}/children?page_size=2")
    second = notion("GET", f"/blocks/{WIKI}/children?page_size=2&start_cursor={first['next_cursor']}")
    assert (len(first["results"]), first["has_more"], len(second["results"])) == (2, True, 2)
    assert second["results"][0]["id"] == first["next_cursor"]
    users = notion("GET", "/users?page_size=4")
    rest = notion("GET", f"/users?start_cursor={users['next_cursor']}")
    assert (len(users["results"]), len(rest["results"]), rest["has_more"]) == (4, 2, False)
    refused(notion("GET", "/users?page_size=500", status=400), 400, "validation_error")


def test_a_title_or_text_given_as_the_bare_array_is_notions_shorthand(notion):
    made = notion("POST", "/pages", {"parent": {"page_id": WIKI}, "properties": {"title": [{"text": {
        "content": "Kale"}}]}})
    assert made["properties"]["title"]["title"][0]["plain_text"] == "Kale"
    row = notion("POST", "/pages", {"parent": {"data_source_id": TASKS}, "properties": {"Name": [{"text": {
        "content": "Short"}}]}})
    renamed = notion("PATCH", f"/pages/{row['id']}", {"properties": {"Name": [{"text": {"content": "Shorter"}}]}})
    assert renamed["properties"]["Name"]["title"][0]["plain_text"] == "Shorter"
    refused(notion("POST", "/pages", {"parent": {"data_source_id": TASKS}, "properties": {"Points": 3}},
                   status=400), 400, "validation_error")


def test_the_version_before_data_sources_is_answered_as_it_was(notion):
    """Notion-Version 2022-06-28 (notion-client 2, @notionhq/client up to 4): a database holds
    the pages and their schema; search finds databases; a database is queried itself."""
    old = {**HEADERS, "Notion-Version": "2022-06-28"}
    [database] = notion("POST", "/search", {"filter": {"property": "object", "value": "database"}},
                        headers=old)["results"]
    assert database["object"] == "database" and "Status" in database["properties"]
    assert "Points" in notion("GET", f"/databases/{database['id']}", headers=old)["properties"]
    rows = notion("POST", f"/databases/{database['id']}/query", {"filter": {
        "property": "Status", "status": {"equals": "Done"}}}, headers=old)["results"]
    assert [r["parent"] for r in rows] == [{"type": "database_id", "database_id": database["id"]}]
    made = notion("POST", "/databases", {"parent": {"type": "page_id", "page_id": WIKI},
                                         "title": [{"text": {"content": "Bugs"}}],
                                         "properties": {"Title": {"title": {}}, "Severity": {"select": {}}}},
                  headers=old)
    assert sorted(made["properties"]) == ["Severity", "Title"]
    assert notion("GET", f"/pages/{rows[0]['id']}")["parent"]["type"] == "data_source_id"  # 2025-09-03's own
