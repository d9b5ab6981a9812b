"""Notion's objects as its API shows them, from stored rows: users (a person's email under
`person`, the integration's bot under `bot`), rich text laid out in full (annotations, plain
text, href), and what every page, database, data source and block derives on read rather than
stores (`archived` from `in_trash`, `url` from the id, a database's data sources, a block's
`has_children`, a child page block's title). Also the ids, times and errors every handler uses."""

from __future__ import annotations

import re
from typing import Any

from mock_services import clock
from mock_services.rest.errors import RestError
from mock_services.store import EnvState, Row

UUID = re.compile(r"^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$")
ANNOTATIONS = {"bold": False, "italic": False, "strikethrough": False, "underline": False, "code": False,
               "color": "default"}
SHARED = "Make sure the relevant pages and databases are shared with your integration."
INTERNAL = ("seq", "email")  # what rows keep for the replica (order among siblings; a world's join key)


def invalid(message: str) -> RestError:
    return RestError(400, "validation_error", message)


def not_found(kind: str, found_id: Any) -> RestError:
    return RestError(404, "object_not_found", f"Could not find {kind} with ID: {found_id}. {SHARED}")


def normal_id(value: Any, what: str = "id") -> str:
    """An id as Notion keeps it: a dashed lowercase UUID (clients may send 32 bare hex digits)."""
    text = str(value or "").strip().lower()
    if not UUID.match(text):
        raise invalid(f"path failed validation: path.{what} should be a valid uuid, instead was `\"{value}\"`.")
    bare = text.replace("-", "")
    return f"{bare[:8]}-{bare[8:12]}-{bare[12:16]}-{bare[16:20]}-{bare[20:]}"


def now() -> str:
    return clock.utcnow().strftime("%Y-%m-%dT%H:%M:%S.000Z")


def new_id() -> str:
    return str(clock.uuid4())


def stamps(user: str, created: bool = True) -> dict:
    """Who and when: a new object's four fields, or an edit's two."""
    at, by = now(), {"object": "user", "id": user}
    edited = {"last_edited_time": at, "last_edited_by": by}
    return {"created_time": at, "created_by": by, **edited} if created else edited


# -- rich text -----------------------------------------------------------------------------------
def rich_text(items: Any, state: EnvState | None = None) -> list[dict]:
    """Rich text items as a request gives them, laid out as Notion answers them."""
    if not isinstance(items, list):
        raise invalid("rich_text should be an array.")
    out = []
    for item in items:
        if not isinstance(item, dict):
            raise invalid("rich_text items should be objects.")
        kind = item.get("type") or next((k for k in ("text", "mention", "equation") if k in item), "text")
        laid: dict[str, Any] = {"type": kind, "annotations": {**ANNOTATIONS, **(item.get("annotations") or {})}}
        if kind == "text":
            content = (item.get("text") or {}).get("content", "")
            link = (item.get("text") or {}).get("link")
            laid["text"] = {"content": content, "link": link if isinstance(link, dict) else None}
            laid["plain_text"], laid["href"] = content, (link or {}).get("url") if isinstance(link, dict) else None
        elif kind == "equation":
            expression = (item.get("equation") or {}).get("expression", "")
            laid["equation"], laid["plain_text"], laid["href"] = {"expression": expression}, expression, None
        else:
            laid[kind] = item.get(kind) or {}
            laid["plain_text"], laid["href"] = item.get("plain_text", ""), item.get("href")
            user = (laid[kind].get("user") or {}).get("id") if kind == "mention" else None
            if user and state is not None:
                found = state.first("notion_users", id=user)
                laid[kind] = {"type": "user", "user": {"object": "user", "id": user}}
                laid["plain_text"] = "@" + (found or {}).get("name", "Anonymous")
        out.append(laid)
    return out


def plain(items: Any) -> str:
    return "".join(i.get("plain_text") or (i.get("text") or {}).get("content", "") for i in items or []
                   if isinstance(i, dict))


# -- users ---------------------------------------------------------------------------------------
def user(row: Row) -> dict:
    out = {"object": "user", "id": row["id"], "type": row["type"], "name": row.get("name"),
           "avatar_url": row.get("avatar_url")}
    if row["type"] == "person":
        out["person"] = {"email": row["email"]} if row.get("email") else {}
    else:
        out["bot"] = {"owner": {"type": "workspace", "workspace": True}, "workspace_name": "Acme",
                      "workspace_id": row["id"], "workspace_limits": {"max_file_upload_size_in_bytes": 5368709120}}
    return out


# -- derived on read -----------------------------------------------------------------------------
def url_of(title: str, object_id: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", title).strip("-")
    return f"https://www.notion.so/{slug + '-' if slug else ''}{object_id.replace('-', '')}"


def page_title(row: Row) -> str:
    return next((plain(p.get("title")) for p in row.get("properties", {}).values() if p.get("type") == "title"), "")


def shown(row: Row) -> dict:
    """A row without what only the replica keeps, with `archived` as Notion derives it."""
    out = {k: v for k, v in row.items() if k not in INTERNAL}
    out["archived"] = bool(row.get("in_trash"))
    return out


def database(state: EnvState, row: Row) -> dict:
    sources = [{"id": s["id"], "name": plain(s.get("title"))} for s in state.rows("notion_data_sources")
               if (s.get("parent") or {}).get("database_id") == row["id"]]
    return {**shown(row), "data_sources": sources, "url": url_of(plain(row.get("title")), row["id"]),
            "public_url": None}


def data_source(state: EnvState, row: Row) -> dict:
    parent = state.first("notion_databases", id=(row.get("parent") or {}).get("database_id")) or {}
    configs = {name: {"description": None, **config} for name, config in (row.get("properties") or {}).items()}
    return {**shown(row), "properties": configs,
            "database_parent": parent.get("parent") or {"type": "workspace", "workspace": True},
            "is_inline": bool(parent.get("is_inline")), "url": url_of(plain(row.get("title")), row["id"]),
            "public_url": None}


def block(state: EnvState, row: Row) -> dict:
    out = shown(row)
    kind = row["type"]
    own = own_object(state, row)
    if own is not None:  # a child page's or database's title and trash are its own object's
        out[kind] = {"title": page_title(own) if kind == "child_page" else plain(own.get("title"))}
        out["in_trash"] = out["archived"] = bool(own.get("in_trash"))
    out["has_children"] = any(not trashed(state, b) for b in children_of(state, row["id"]))
    return out


def own_object(state: EnvState, row: Row) -> Row | None:
    """The page or database a child_page or child_database block stands for (the same id)."""
    table = {"child_page": "notion_pages", "child_database": "notion_databases"}.get(row.get("type", ""))
    return state.first(table, id=row["id"]) if table else None


def trashed(state: EnvState, row: Row) -> bool:
    own = own_object(state, row)
    return bool((own if own is not None else row).get("in_trash"))


def parent_of(row: Row) -> str | None:
    """The id a page's or block's parent names (a page, a block, a database or a data source)."""
    parent = row.get("parent") or {}
    return parent.get(parent.get("type", "")) if parent.get("type") != "workspace" else None


def children_of(state: EnvState, parent_id: str) -> list[Row]:
    """A page's or block's child blocks (trashed ones too), in their order."""
    rows = [b for b in state.rows("notion_blocks") if parent_of(b) == parent_id]
    return sorted(rows, key=lambda b: b.get("seq", 0))


def page_block(state: EnvState, page: Row) -> dict:
    """A page read as a block (`blocks.retrieve` of a page's id): its child_page block."""
    found = state.first("notion_blocks", id=page["id"])
    if found:
        return block(state, found)  # its trash is the page's
    return block(state, {"id": page["id"], "object": "block", "parent": page["parent"], "type": "child_page",
                         "child_page": {}, "in_trash": page.get("in_trash", False),
                         **{k: page[k] for k in ("created_time", "created_by", "last_edited_time",
                                                 "last_edited_by")}})
