"""Which of the Notion replica's REST operations backs each tool of Notion's hosted MCP server
(`https://mcp.notion.com/mcp`); the tools are in spec/mcp_tools.json. That server takes a page's
properties as plain values (`{"Name": "Launch", "Status": "Done"}`); each becomes the value the
REST API wants by the type its data source's schema gives the property, read from the pack's own
API first. A tool not named here (comments, teams, moving, duplicating, database schemas)
answers that the replica does not back it."""

from __future__ import annotations

import re
from typing import Any

from mock_services.mcp.operations import Arguments, Caller, Each, Operation, Rest

API = "/v1"
VERSION = {"Notion-Version": "2025-09-03"}  # the API version the tools speak (data sources)
TITLE_ONLY = {"title": "title"}  # a page outside a data source has only its title
HEX = re.compile(r"[0-9a-f]{32}")


def _text(value: Any) -> list[dict]:
    return [{"type": "text", "text": {"content": str(value)}}]


PLAIN = {  # a property's type -> its plain value as the API's (under the type's name)
    "title": _text, "rich_text": _text, "select": lambda v: {"name": v}, "status": lambda v: {"name": v},
    "multi_select": lambda v: [{"name": n.strip()} for n in (v if isinstance(v, list) else str(v).split(","))],
    "date": lambda v: {"start": v}, "people": lambda v: [{"id": i} for i in (v if isinstance(v, list) else [v])],
}


async def _schema(caller: Caller, parent: dict) -> tuple[dict, dict[str, str]]:
    """The API's parent (a database's first data source for a database) and its schema: property
    name -> type."""
    if "database_id" in parent:
        database = await caller.send("GET", f"{API}/databases/{parent['database_id']}", headers=VERSION)
        sources = database.body.get("data_sources") if database.ok and isinstance(database.body, dict) else None
        parent = {"data_source_id": sources[0]["id"]} if sources else parent
    if "data_source_id" not in parent:
        return parent, TITLE_ONLY
    source = await caller.send("GET", f"{API}/data_sources/{parent['data_source_id']}", headers=VERSION)
    found = source.body.get("properties", {}) if source.ok and isinstance(source.body, dict) else {}
    return parent, {name: spec.get("type", "rich_text") for name, spec in found.items()}


def _properties(given: dict, schema: dict[str, str]) -> dict:
    """Plain values as the API's; `title` names the schema's title property whatever it is called;
    a value already in the API's form stays as it is."""
    title = next((name for name, kind in schema.items() if kind == "title"), "title")
    out = {}
    for name, value in given.items():
        name = title if name == "title" else name
        kind = schema.get(name, "rich_text")
        out[name] = value if isinstance(value, dict) else {kind: PLAIN.get(kind, lambda v: v)(value)}
    return out


async def _new_page(caller: Caller, arguments: Arguments) -> Arguments:
    parent, schema = await _schema(caller, arguments.get("parent") or {})
    body = {"parent": parent, "properties": _properties(arguments.get("properties") or {}, schema)}
    lines = [line for line in (arguments.get("content") or "").splitlines() if line.strip()]
    if lines:
        body["children"] = [{"type": "paragraph", "paragraph": {"rich_text": _text(line)}} for line in lines]
    return body


async def _edit(caller: Caller, arguments: Arguments) -> Arguments:
    page = await caller.send("GET", f"{API}/pages/{arguments['page_id']}", headers=VERSION)
    parent = page.body.get("parent", {}) if page.ok and isinstance(page.body, dict) else {}
    _, schema = await _schema(caller, {k: v for k, v in parent.items() if k.endswith("_id")})
    edited = {k: v for k, v in arguments.items() if k != "properties"}
    return {**edited, **({"properties": _properties(arguments["properties"], schema)} if "properties" in arguments
                         else {})}


def _page_id(arguments: Arguments) -> Arguments:
    """notion-fetch takes an id or a page's URL (whose last part ends in the id, without dashes)."""
    last = str(arguments["id"]).split("?")[0].rstrip("/").rsplit("/", 1)[-1].replace("-", "")
    return {"id": last[-32:] if HEX.fullmatch(last[-32:]) else arguments["id"]}


OPERATIONS: dict[str, Operation] = {
    "notion-search": Rest("POST", API + "/search", headers=VERSION),
    "notion-fetch": Rest("GET", API + "/pages/{id}", headers=VERSION, prepare=_page_id),
    "notion-create-pages": Each("pages", Rest("POST", API + "/pages", headers=VERSION, ask=_new_page), result="pages"),
    "notion-update-page": Rest("PATCH", API + "/pages/{page_id}", headers=VERSION, ask=_edit),
    "notion-get-users": Rest("GET", API + "/users", headers=VERSION),
    "notion-get-user": Rest("GET", API + "/users/{user_id}", headers=VERSION,
                            prepare=lambda arguments: {"user_id": "me" if arguments["user_id"] == "self"
                                                       else arguments["user_id"]}),
}
