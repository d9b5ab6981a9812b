"""Notion's official clients, Python `notion-client` and Node `@notionhq/client`, run unmodified in
a sandbox on the namespace and docker backends, reach the environment's Notion replica (a pack
made from a description derived from the Node client's types) through the proxy: users and me,
search, a data source queried with filters, sorts and cursors, a page made in it and updated,
the block tree appended to, nested, updated, listed and trashed, a child page made and trashed;
Notion's own errors for a missing page, a missing parent, an unknown property, a block that
cannot hold children and an edit of a trashed page. The diff shows what each changed."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tests.conftest import ISOLATING
from tests.e2e.official_clients import run_node_client

AGENT = r'''
import json
from notion_client import APIResponseError, Client
from notion_client.helpers import collect_paginated_api

notion = Client(auth="secret_detour")
out = {}
me = notion.users.me()
out["me"] = [me["type"], me["name"]]
users = notion.users.list()["results"]
out["people"] = sorted(u["person"]["email"] for u in users if u["type"] == "person")
robert = next(u["id"] for u in users if u["name"] == "Robert Smith")
source = notion.search(query="tasks", filter={"property": "object", "value": "data_source"})["results"][0]
out["source"] = [source["title"][0]["plain_text"], sorted(source["properties"])]
mine = notion.data_sources.query(source["id"], filter={"and": [
    {"property": "Assignee", "people": {"contains": robert}},
    {"property": "Status", "status": {"does_not_equal": "Done"}}]})
out["robert"] = [r["properties"]["Name"]["title"][0]["plain_text"] for r in mine["results"]]
first = notion.data_sources.query(source["id"], sorts=[{"property": "Points", "direction": "descending"}],
                                  page_size=2)
out["first"] = [first["has_more"], [r["properties"]["Points"]["number"] for r in first["results"]]]
out["all"] = len(collect_paginated_api(notion.data_sources.query, data_source_id=source["id"], page_size=2))
page = notion.pages.create(
    parent={"data_source_id": source["id"]},
    properties={"Name": {"title": [{"text": {"content": "Write the Notion runbook"}}]},
                "Status": {"status": {"name": "Not started"}}, "Points": {"number": 3},
                "Assignee": {"people": [{"id": robert}]}},
    children=[{"object": "block", "type": "heading_2",
               "heading_2": {"rich_text": [{"type": "text", "text": {"content": "Steps"}}]}}])
notion.pages.update(page["id"], properties={"Status": {"status": {"name": "In progress"}}})
added = notion.blocks.children.append(page["id"], children=[
    {"to_do": {"rich_text": [{"text": {"content": "Draft"}}], "checked": False}},
    {"toggle": {"rich_text": [{"text": {"content": "Details"}}],
                "children": [{"paragraph": {"rich_text": [{"text": {"content": "nested"}}]}}]}}])
todo, toggle = added["results"]
notion.blocks.update(todo["id"], to_do={"checked": True})
out["tree"] = [[b["type"], b["has_children"]] for b in notion.blocks.children.list(page["id"])["results"]]
out["nested"] = [b["paragraph"]["rich_text"][0]["plain_text"]
                 for b in notion.blocks.children.list(toggle["id"])["results"]]
out["checked"] = notion.blocks.retrieve(todo["id"])["to_do"]["checked"]
notion.blocks.delete(toggle["id"])
out["after_delete"] = [b["type"] for b in notion.blocks.children.list(page["id"])["results"]]
again = notion.pages.retrieve(page["id"])
out["again"] = [again["properties"]["Status"]["status"]["name"], again["properties"]["Points"]["number"]]
divider = notion.blocks.children.append(page["id"], children=[{"divider": {}}])["results"][0]
for name, call in (
        ("divider", lambda: notion.blocks.children.append(divider["id"], children=[{"paragraph": {"rich_text": []}}])),
        ("missing", lambda: notion.pages.retrieve("00000000-0000-4000-8000-000000000000")),
        ("orphan", lambda: notion.pages.create(parent={"page_id": "00000000-0000-4000-8000-000000000000"},
                                               properties={"title": {"title": [{"text": {"content": "x"}}]}})),
        ("unknown", lambda: notion.pages.create(parent={"data_source_id": source["id"]},
                                                properties={"Colour": {"rich_text": []}}))):
    try:
        call()
    except APIResponseError as e:
        out[name] = [e.status, e.code]
print(json.dumps(out))
'''

EXPECTED = {"me": ["bot", "AI Agent"],
            "people": ["john@example.com", "priya@example.com", "robert@example.com", "sarah@example.com",
                       "yuki@example.com"],
            "source": ["Tasks", ["Assignee", "Due", "Name", "Points", "Priority", "Status", "Tags"]],
            "robert": ["ENG-5 checkout fails for saved cards"], "first": [True, [5, 3]], "all": 5,
            "tree": [["heading_2", False], ["to_do", False], ["toggle", True]], "nested": ["nested"],
            "checked": True, "after_delete": ["heading_2", "to_do"], "again": ["In progress", 3],
            "divider": [400, "validation_error"], "missing": [404, "object_not_found"],
            "orphan": [404, "object_not_found"], "unknown": [400, "validation_error"]}


@pytest.mark.parametrize("backend", ISOLATING)
def test_notion_python_through_the_proxy(live_stack, backend):
    result = live_stack.run(live_stack.env("notion_default"), AGENT, ".py", backend=backend)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == EXPECTED
    assert {r.host for r in result.requests} == {"api.notion.com"}
    diff = result.diff
    # Everything it touched it made: the diff holds the rows as they ended (the page in progress,
    # the to-do checked, the toggle in the trash), nothing of the seed changed.
    assert Counter(r["__table__"] for r in diff.inserts) == {"notion_pages": 1, "notion_blocks": 5}
    assert not diff.updates and not diff.deletes
    page = next(r for r in diff.inserts if r["__table__"] == "notion_pages")
    assert page["properties"]["Status"]["status"]["name"] == "In progress"
    made = {r["type"]: r for r in diff.inserts if r["__table__"] == "notion_blocks"}
    assert (made["to_do"]["to_do"]["checked"], made["toggle"]["in_trash"]) == (True, True)
    assert made["paragraph"]["parent"] == {"type": "block_id", "block_id": made["toggle"]["id"]}


NODE_AGENT = r'''
import { Client, collectPaginatedAPI } from "@notionhq/client";
const notion = new Client({ auth: "secret_detour" });
const out = {};
out.me = (await notion.users.me({})).type;
const wiki = (await notion.search({ query: "Engineering", filter: { property: "object", value: "page" } })).results[0];
out.wiki = wiki.properties.title.title[0].plain_text;
const blocks = await collectPaginatedAPI(notion.blocks.children.list, { block_id: wiki.id, page_size: 2 });
out.blocks = blocks.map((b) => b.type);
const database = await notion.databases.retrieve({ database_id: blocks.find((b) => b.type === "child_database").id });
out.database = database.data_sources.map((s) => s.name);
const high = await notion.dataSources.query({ data_source_id: database.data_sources[0].id,
  filter: { property: "Priority", select: { equals: "High" } }, sorts: [{ property: "Due", direction: "ascending" }] });
out.high = high.results.map((p) => p.properties.Name.title[0].plain_text);
const note = await notion.pages.create({ parent: { page_id: wiki.id },
  properties: { title: { title: [{ text: { content: "Retro" } }] } },
  children: [{ paragraph: { rich_text: [{ text: { content: "What went well" } }] } }] });
const child = await notion.blocks.retrieve({ block_id: note.id });
out.child = [child.type, child.child_page.title, child.has_children];
await notion.pages.update({ page_id: note.id, in_trash: true });
try {
  await notion.pages.update({ page_id: note.id, properties: { title: { title: [{ text: { content: "x" } }] } } });
} catch (e) {
  out.trashed = [e.status, e.code];
}
try {
  await notion.users.retrieve({ user_id: "00000000-0000-4000-8000-000000000000" });
} catch (e) {
  out.missing = [e.status, e.code];
}
console.log(JSON.stringify(out));
'''


@pytest.mark.parametrize("backend", ISOLATING)
def test_notion_node_through_the_proxy(live_stack, backend, request):
    """@notionhq/client, unmodified: on docker from the image derived from tests/node_clients."""
    result = run_node_client(live_stack, request, backend, "@notionhq/client", NODE_AGENT, "notion_default")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == {
        "me": "bot", "wiki": "Engineering",
        "blocks": ["heading_1", "paragraph", "child_database", "toggle", "child_page"], "database": ["Tasks"],
        "high": ["Renewal call with Globex", "ENG-5 checkout fails for saved cards"],
        "child": ["child_page", "Retro", True], "trashed": [400, "validation_error"],
        "missing": [404, "object_not_found"]}
    assert {r.host for r in result.requests} == {"api.notion.com"}
    inserted = sorted((r["__table__"], r["type"] if "type" in r else r["in_trash"]) for r in result.diff.inserts)
    assert inserted == [("notion_blocks", "child_page"), ("notion_blocks", "paragraph"), ("notion_pages", True)]
    assert not result.diff.updates and not result.diff.deletes
