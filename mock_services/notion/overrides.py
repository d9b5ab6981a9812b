"""Notion's rules over the pack generated from the description derived from its client: every
operation of pages, databases, data sources, blocks (blocks.py), users and search is answered
here, because Notion's objects are not a generic collection's rows (a page's parent must exist
and decides its properties, a database holds data sources, query and search are POSTs). Every
request must carry the Notion-Version header and a bearer token; errors are Notion's
`{"object": "error", "status", "code", "message"}` with its codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mock_services import clock
from mock_services.notion import blocks, objects, properties, query
from mock_services.notion.objects import invalid, new_id, normal_id, not_found, plain, rich_text, stamps
from mock_services.rest.errors import RestError
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import Call
from mock_services.store import EnvState, Row
from mock_services.rest.openapi.credentials import issuer

# The legacy query of a database (Notion-Version 2022-06-28, what older clients call): its data source's.
ROUTES = {"queryDataSource": ["/v1/databases/{data_source_id}/query"]}
LEGACY = "2022-06-28"
CODES = {"notFound": "invalid_request_url", "httpMethodNotAllowed": "invalid_request_url", "invalid": "validation_error",
         "required": "validation_error", "parameter_invalid": "validation_error",
         "parameter_missing": "validation_error", "parameter_unknown": "validation_error",
         "invalidParameter": "validation_error", "parseError": "invalid_json", "badContent": "invalid_json",
         "rate_limit": "rate_limited", "backendError": "internal_server_error"}
# Notion's error codes, as the description (from the client's APIErrorCode) lists them.
NOTION_CODES = set(json.loads((Path(__file__).parent / "spec" / "openapi.json").read_text())
                   ["components"]["schemas"]["APIErrorResponse"]["properties"]["code"]["enum"])
NO_VERSION = "Notion-Version header failed validation: Notion-Version header should be defined, instead was `undefined`."


def error_body(error: RestError) -> dict:
    code = CODES.get(error.reason, error.reason)
    message = error.message
    if error.reason == "required" and "Notion-Version" in error.message:
        code, message = "missing_version", NO_VERSION
    if code not in NOTION_CODES:
        code = "internal_server_error" if error.status >= 500 else "invalid_request"
    return {"object": "error", "status": error.status, "code": code, "message": message,
            "request_id": str(clock.uuid4())}


def identify(state: EnvState, token: str | None, headers: dict[str, str]) -> str:
    """The integration's bot (the environment's acting user); a request without a token is refused."""
    if not token:
        raise RestError(401, "unauthorized", "API token is invalid.")
    return state.info.acting_user


def _fill(resources: Resources, value: dict, schema: str) -> dict:
    return resources.schemas.fill(value, {"$ref": f"#/components/schemas/{schema}"})


# -- pages ---------------------------------------------------------------------------------------
def legacy(call: Call) -> bool:
    """Whether the caller speaks the version before data sources (a database held the pages and
    their schema), as clients older than notion-client 3 and @notionhq/client 5 do."""
    return call.headers.get("notion-version") == LEGACY


def page(resources: Resources, call: Call, row: Row, only: list[str] | None = None) -> dict:
    shown = {**objects.shown(row), "is_archived": bool(row.get("in_trash")), "public_url": None,
             "properties": properties.shown(call.state, row),
             "url": objects.url_of(objects.page_title(row), row["id"])}
    if legacy(call) and shown["parent"].get("type") == "data_source_id":  # a row of its database, then
        shown["parent"] = {"type": "database_id", "database_id": shown["parent"]["database_id"]}
    if only:
        shown["properties"] = {n: p for n, p in shown["properties"].items() if p["id"] in only or n in only}
    return _fill(resources, shown, "PageObjectResponse")


def find_page(state: EnvState, raw_id: Any, editing: bool = False) -> Row:
    found_id = normal_id(raw_id, "page_id")
    row = state.first("notion_pages", id=found_id)
    if row is None:
        raise not_found("page", found_id)
    if editing and row.get("in_trash"):
        raise invalid(blocks.ARCHIVED)
    return row


def _parent(state: EnvState, given: Any) -> dict:
    """A new page's parent as Notion keeps it; the page, database or data source must exist."""
    if not isinstance(given, dict):
        raise invalid("body.parent should be defined, instead was `undefined`.")
    kind = given.get("type") or next((k for k in ("page_id", "database_id", "data_source_id", "workspace")
                                      if k in given), None)
    if kind == "workspace":
        return {"type": "workspace", "workspace": True}
    if kind == "page_id":
        return {"type": "page_id", "page_id": find_page(state, given.get("page_id"), editing=True)["id"]}
    if kind == "database_id":
        database = find_database(state, given.get("database_id"))
        sources = objects.database(state, database)["data_sources"]
        if len(sources) != 1:
            raise invalid(f"Database {database['id']} has {len(sources)} data sources: name one as data_source_id.")
        return {"type": "data_source_id", "data_source_id": sources[0]["id"], "database_id": database["id"]}
    if kind == "data_source_id":
        source = find_source(state, given.get("data_source_id"))
        return {"type": "data_source_id", "data_source_id": source["id"],
                "database_id": source["parent"]["database_id"]}
    raise invalid("body.parent should have a page_id, a database_id, a data_source_id or workspace.")


def _in_parent_page(state: EnvState, parent: dict, object_id: str, kind: str, user: str) -> None:
    """A page or database made under a page is also a block of that page's content."""
    if parent["type"] == "page_id":
        at = max([b.get("seq", 0) for b in objects.children_of(state, parent["page_id"])], default=0)
        state.insert("notion_blocks", {"id": object_id, "object": "block", "parent": parent, "type": kind, kind: {},
                                       "in_trash": False, "seq": at + 1, **stamps(user)})


def _spelled_out(call: Call, page: Row | None) -> None:
    """The request's shorthand properties spelled out before the body is checked against the
    description (a new page's schema is its parent's)."""
    raw = call.body if isinstance(call.body, dict) else {}
    given = raw.get("properties")
    if not isinstance(given, dict) or not any(isinstance(v, list) for v in given.values()):
        return
    page = page or {"parent": _parent(call.state, raw.get("parent"))}
    call.body = {**raw, "properties": properties.unabbreviated(call.state, page, given)}


def create_page(resources: Resources, call: Call) -> Any:
    _spelled_out(call, None)
    body = resources.body(call)
    parent = _parent(call.state, body.get("parent"))
    if body.get("markdown") or body.get("template"):
        raise invalid("markdown and template bodies are not supported by detour's Notion replica.")
    row: Row = {"id": new_id(), "object": "page", "parent": parent, "icon": body.get("icon"),
                "cover": body.get("cover"), "in_trash": False, "is_locked": False, **stamps(call.user)}
    row["properties"] = properties.written(call.state, row, body.get("properties") or {})
    call.state.insert("notion_pages", row)
    _in_parent_page(call.state, parent, row["id"], "child_page", call.user)
    children = body.get("children") or body.get("content")
    if children:
        blocks.insert_children(call.state, {"type": "page_id", "page_id": row["id"]}, children, call.user)
    return page(resources, call, row)


def get_page(resources: Resources, call: Call) -> Any:
    return page(resources, call, find_page(call.state, call.params["page_id"]),
                call.params.get("filter_properties"))


def update_page(resources: Resources, call: Call) -> Any:
    _spelled_out(call, find_page(call.state, call.params["page_id"]))
    body = resources.body(call)
    trash = next((body[k] for k in ("in_trash", "archived", "is_archived") if k in body), None)
    row = find_page(call.state, call.params["page_id"], editing=trash is not False)
    row = {**row, "properties": properties.written(call.state, row, body.get("properties")),
           **{k: body[k] for k in ("icon", "cover", "is_locked") if k in body}, **stamps(call.user, created=False)}
    if trash is not None:
        row["in_trash"] = bool(trash)
    call.state.update("notion_pages", row)
    return page(resources, call, row, call.params.get("filter_properties"))


# -- databases and data sources ------------------------------------------------------------------
def find(state: EnvState, kind: str, raw_id: Any) -> Row:
    """The database or data source (`kind`) an id names; Notion's 404 where none is."""
    found_id = normal_id(raw_id, f"{kind}_id")
    row = state.first(f"notion_{kind}s", id=found_id)
    if row is None:
        raise not_found(kind, found_id)
    return row


def find_database(state: EnvState, raw_id: Any) -> Row:
    return find(state, "database", raw_id)


def find_source(state: EnvState, raw_id: Any) -> Row:
    return find(state, "data_source", raw_id)


def database(resources: Resources, call: Call, row: Row) -> dict:
    shown = objects.database(call.state, row)
    if legacy(call) and shown["data_sources"]:  # the schema was the database's own
        held = find_source(call.state, shown["data_sources"][0]["id"])
        shown["properties"] = objects.data_source(call.state, held)["properties"]
    return _fill(resources, shown, "DatabaseObjectResponse")


def source(resources: Resources, state: EnvState, row: Row) -> dict:
    return _fill(resources, objects.data_source(state, row), "DataSourceObjectResponse")


def _new_source(call: Call, database_id: str, config: Any, title: Any) -> Row:
    row = {"id": new_id(), "object": "data_source", "parent": {"type": "database_id", "database_id": database_id},
           "title": rich_text(title or []), "description": [], "in_trash": False, "icon": None, "cover": None,
           "properties": properties.configured(config if config is not None else
                                               {"Name": {"type": "title", "title": {}}}), **stamps(call.user)}
    call.state.insert("notion_data_sources", row)
    return row


def create_database(resources: Resources, call: Call) -> Any:
    body = resources.body(call)
    parent = _parent(call.state, body.get("parent"))
    if parent["type"] not in ("page_id", "workspace"):
        raise invalid("A database's parent is a page (or the workspace).")
    row = {"id": new_id(), "object": "database", "parent": parent, "title": rich_text(body.get("title") or []),
           "description": rich_text(body.get("description") or []), "is_inline": bool(body.get("is_inline")),
           "in_trash": False, "is_locked": False, "icon": body.get("icon"), "cover": body.get("cover"),
           **stamps(call.user)}
    call.state.insert("notion_databases", row)
    schema = (body.get("initial_data_source") or {}).get("properties") or (body.get("properties") if legacy(call)
                                                                           else None)
    _new_source(call, row["id"], schema, body.get("title"))
    _in_parent_page(call.state, parent, row["id"], "child_database", call.user)
    return database(resources, call, row)


def update_database(resources: Resources, call: Call) -> Any:
    body = resources.body(call)
    row = find_database(call.state, call.params["database_id"])
    if row.get("in_trash") and body.get("in_trash") is not False:
        raise invalid(blocks.ARCHIVED)
    for name in ("title", "description"):
        if name in body:
            row[name] = rich_text(body[name] or [])
    row.update({k: body[k] for k in ("is_inline", "icon", "cover", "is_locked", "in_trash") if k in body})
    if "parent" in body:
        row["parent"] = _parent(call.state, body["parent"])
    row.update(stamps(call.user, created=False))
    call.state.update("notion_databases", row)
    return database(resources, call, row)


def create_source(resources: Resources, call: Call) -> Any:
    body = resources.body(call)
    parent = find_database(call.state, (body.get("parent") or {}).get("database_id"))
    return source(resources, call.state, _new_source(call, parent["id"], body.get("properties") or {},
                                                     body.get("title")))


def update_source(resources: Resources, call: Call) -> Any:
    body = resources.body(call)
    row = find_source(call.state, call.params["data_source_id"])
    if "properties" in body:
        row["properties"] = properties.configured(body["properties"], row["properties"])
    if "title" in body:
        row["title"] = rich_text(body["title"] or [])
    trash = next((body[k] for k in ("in_trash", "archived") if k in body), None)
    row.update({k: body[k] for k in ("icon",) if k in body}, **stamps(call.user, created=False))
    if trash is not None:
        row["in_trash"] = bool(trash)
    call.state.update("notion_data_sources", row)
    return source(resources, call.state, row)


def query_source(resources: Resources, call: Call) -> Any:
    body = resources.body(call)
    raw = call.params["data_source_id"]
    found = call.state.first("notion_databases", id=normal_id(raw, "data_source_id"))
    if found is not None:  # the legacy route names a database: its (first) data source answers
        sources = objects.database(call.state, found)["data_sources"]
        raw = sources[0]["id"] if sources else raw
    row = find_source(call.state, raw)
    trashed = bool(body.get("in_trash") or body.get("archived"))
    rows = [p for p in call.state.rows("notion_pages") if (p.get("parent") or {}).get("data_source_id") == row["id"]
            and bool(p.get("in_trash")) == trashed]
    pages = [page(resources, call, p) for p in rows]
    test = query.matcher(row["properties"], body.get("filter"))
    chosen = query.sort([p for p in pages if test(p)], body.get("sorts"))
    listed = query.page_of(chosen, body.get("start_cursor"), body.get("page_size"))
    only = call.params.get("filter_properties")
    if only:
        for item in listed["results"]:
            item["properties"] = {n: p for n, p in item["properties"].items() if p["id"] in only or n in only}
    return {**listed, "type": "page_or_data_source", "page_or_data_source": {}}


# -- users and search ----------------------------------------------------------------------------
def user_answer(resources: Resources, row: Row) -> dict:
    return _fill(resources, objects.user(row), "UserObjectResponse")


def list_users(resources: Resources, call: Call) -> Any:
    listed = query.page_of(call.state.rows("notion_users"), call.params.get("start_cursor"),
                           call.params.get("page_size"))
    return {**listed, "results": [user_answer(resources, u) for u in listed["results"]], "type": "user", "user": {}}


def get_user(resources: Resources, call: Call) -> Any:
    found_id = normal_id(call.params["user_id"], "user_id")
    row = call.state.first("notion_users", id=found_id)
    if row is None:
        raise not_found("user", found_id)
    return user_answer(resources, row)


def get_self(resources: Resources, call: Call) -> Any:
    row = call.state.first("notion_users", id=call.user)
    if row is None:
        raise RestError(401, "unauthorized", "API token is invalid.")
    return user_answer(resources, row)


def search(resources: Resources, call: Call) -> Any:
    raw = call.body if isinstance(call.body, dict) else {}
    if legacy(call) and (raw.get("filter") or {}).get("value") == "database":  # what data sources were
        call.body = {**raw, "filter": {**raw["filter"], "value": "data_source"}}
    body = resources.body(call)
    wanted = str(body.get("query") or "").lower()
    kind = (body.get("filter") or {}).get("value")
    found = []
    if kind in (None, "page"):
        found += [page(resources, call, p) for p in call.state.rows("notion_pages") if not p.get("in_trash")
                  and wanted in objects.page_title(p).lower()]
    if kind in (None, "data_source"):
        sources = [s for s in call.state.rows("notion_data_sources")
                   if not s.get("in_trash") and wanted in plain(s.get("title")).lower()]
        found += [database(resources, call, find_database(call.state, s["parent"]["database_id"])) for s in
                  {s["parent"]["database_id"]: s for s in sources}.values()] if legacy(call) else \
            [source(resources, call.state, s) for s in sources]
    backwards = (body.get("sort") or {}).get("direction") != "ascending"
    found.sort(key=lambda o: o.get("last_edited_time", ""), reverse=backwards)
    listed = query.page_of(found, body.get("start_cursor"), body.get("page_size"))
    return {**listed, "type": "page_or_data_source", "page_or_data_source": {}}


HANDLERS = {
    "createPage": create_page, "getPage": get_page, "updatePage": update_page,
    "createDatabase": create_database, "getDatabase": lambda r, c: database(r, c, find_database(
        c.state, c.params["database_id"])), "updateDatabase": update_database,
    "createDataSource": create_source, "getDataSource": lambda r, c: source(r, c.state, find_source(
        c.state, c.params["data_source_id"])), "updateDataSource": update_source, "queryDataSource": query_source,
    "getBlock": blocks.get_block, "updateBlock": blocks.update_block, "deleteBlock": blocks.delete_block,
    "listBlockChildren": blocks.list_children, "appendBlockChildren": blocks.append_children,
    "listUsers": list_users, "getUser": get_user, "getSelf": get_self, "search": search,
}

# Credentials: an integration's token, as Notion's SDK examples read it.
credentials = issuer("ntn_", {"NOTION_TOKEN": "{token}"})
