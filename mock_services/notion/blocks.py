"""Notion's block tree: a page's content is its child blocks, and some blocks hold blocks of
their own. The rules kept: children are appended to a page or to a block whose type can hold
them (a divider or an image cannot), at the end or after a sibling, at most 100 at a time and
two levels deep in one request; a block's type never changes on update; deleting moves a block
(and a child page's or database's own object) to the trash, where it can be read but not edited,
and from where `in_trash: false` brings it back; a trashed block's children are no longer listed."""

from __future__ import annotations

from typing import Any

from mock_services.notion import objects
from mock_services.notion.objects import invalid, new_id, not_found, normal_id, rich_text, stamps
from mock_services.notion.query import page_of
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import Call
from mock_services.store import EnvState, Row

NESTS = {"paragraph", "bulleted_list_item", "numbered_list_item", "toggle", "to_do", "quote", "callout",
         "synced_block", "template", "column", "column_list", "table", "child_page", "child_database", "tab",
         "heading_1", "heading_2", "heading_3", "heading_4"}
TEXT_FIELDS = ("rich_text", "caption")
NOT_BLOCK = ("object", "type", "id", "children")
ARCHIVED = "Can't edit block that is archived. You must unarchive the block before editing."


def kind_of(given: Any) -> str:
    if not isinstance(given, dict):
        raise invalid("body.children should be an array of block objects.")
    kind = given.get("type") or next((k for k in given if k not in NOT_BLOCK), None)
    if not kind or not isinstance(given.get(kind), dict):
        raise invalid(f"body.children: a block of type {kind or '(none)'} needs a `{kind or 'type'}` object.")
    return kind


def content(state: EnvState, given: dict) -> dict:
    """A block's type object as stored: its rich text laid out, its children kept apart."""
    out = {k: v for k, v in given.items() if k != "children"}
    for name in TEXT_FIELDS:
        if name in out:
            out[name] = rich_text(out[name], state)
    return out


def answer_block(resources: Resources, state: EnvState, row: Row) -> dict:
    """A block as Notion answers it, filled to its type's response schema."""
    shown = objects.block(state, row)
    return resources.schemas.fill(shown, _block_schemas(resources).get(row["type"], {}))


_SCHEMAS: dict[int, dict[str, dict]] = {}


def _block_schemas(resources: Resources) -> dict[str, dict]:
    """Each block type's response schema (BlockObjectResponse's member whose `type` it is)."""
    if id(resources) in _SCHEMAS:
        return _SCHEMAS[id(resources)]
    members = resources.schemas.named("BlockObjectResponse").get("anyOf", [])
    out = {}
    for member in members:
        schema = resources.schemas.resolve(member)
        enum = schema.get("properties", {}).get("type", {}).get("enum") or []
        if enum:
            out[enum[0]] = member
    _SCHEMAS[id(resources)] = out
    return out


def holder(state: EnvState, raw_id: Any, editing: bool) -> tuple[str, Row]:
    """The page or block a path names ("page" or "block", its row); 404 where neither is."""
    found_id = normal_id(raw_id, "block_id")
    row = state.first("notion_blocks", id=found_id)
    kind = "block"
    if row is None or row["type"] == "child_page":
        page = state.first("notion_pages", id=found_id)
        row, kind = (page, "page") if page is not None else (row, kind)
    if row is None:
        raise not_found("block", found_id)
    if editing and row.get("in_trash"):
        raise invalid(ARCHIVED)
    return kind, row


def insert_children(state: EnvState, parent: dict, given: Any, user: str, after: str | None = None,
                    depth: int = 1) -> list[Row]:
    """The blocks `given` inserted under `parent` (after the sibling `after`, else at the end)."""
    if not isinstance(given, list):
        raise invalid("body.children should be an array.")
    if len(given) > 100:
        raise invalid(f"body.children.length should be ≤ `100`, instead was `{len(given)}`.")
    if depth > 3:
        raise invalid("body.children: blocks may be nested at most two levels deep in one request.")
    parent_id = parent[parent["type"]]
    siblings = objects.children_of(state, parent_id)
    if after is not None:
        after = normal_id(after, "after")
        at = next((b["seq"] for b in siblings if b["id"] == after), None)
        if at is None:
            raise invalid(f"after: no child block {after} of {parent_id}.")
        for later in (b for b in siblings if b["seq"] > at):
            state.update("notion_blocks", {**later, "seq": later["seq"] + len(given)})
    else:
        at = max([b.get("seq", 0) for b in siblings], default=0)
    made = []
    for offset, item in enumerate(given, start=1):
        kind = kind_of(item)
        row = {"id": new_id(), "object": "block", "parent": parent, "type": kind,
               kind: content(state, item[kind]), "in_trash": False, "seq": at + offset, **stamps(user)}
        state.insert("notion_blocks", row)
        nested = item[kind].get("children") or item.get("children")
        if nested:
            if kind not in NESTS:
                raise invalid(f"Block type {kind} does not support children.")
            insert_children(state, {"type": "block_id", "block_id": row["id"]}, nested, user, None, depth + 1)
        made.append(row)
    return made


def _position(body: dict) -> str | None:
    position = body.get("position") or {}
    if position.get("type") == "after_block":
        return (position.get("after_block") or {}).get("id")
    if position.get("type") == "start":
        raise invalid("position.start is not supported by detour's Notion replica: use after_block.")
    return body.get("after")


def append_children(resources: Resources, call: Call) -> Any:
    body = resources.body(call)
    kind, row = holder(call.state, call.params["block_id"], editing=True)
    if kind == "block" and row["type"] not in NESTS:
        raise invalid(f"Block type {row['type']} does not support children.")
    parent = {"type": "page_id" if kind == "page" else "block_id", f"{kind}_id": row["id"]}
    made = insert_children(call.state, parent, body.get("children"), call.user, _position(body))
    return {"object": "list", "results": [answer_block(resources, call.state, b) for b in made],
            "next_cursor": None, "has_more": False, "type": "block", "block": {}}


def list_children(resources: Resources, call: Call) -> Any:
    _, row = holder(call.state, call.params["block_id"], editing=False)
    rows = [b for b in objects.children_of(call.state, row["id"]) if not objects.trashed(call.state, b)]
    listed = page_of(rows, call.params.get("start_cursor"), call.params.get("page_size"))
    listed["results"] = [answer_block(resources, call.state, b) for b in listed["results"]]
    return {**listed, "type": "block", "block": {}}


def _read(resources: Resources, call: Call, editing: bool) -> tuple[str, Row, dict]:
    kind, row = holder(call.state, call.params["block_id"], editing)
    if kind == "page":
        return kind, row, resources.schemas.fill(objects.page_block(call.state, row),
                                                 _block_schemas(resources)["child_page"])
    return kind, row, answer_block(resources, call.state, row)


def get_block(resources: Resources, call: Call) -> Any:
    return _read(resources, call, editing=False)[2]


def update_block(resources: Resources, call: Call) -> Any:
    body = resources.body(call)
    restoring = body.get("in_trash") is False or body.get("archived") is False
    kind, row, _ = _read(resources, call, editing=not restoring)
    if kind == "page":
        raise invalid("A page is updated with pages.update, not blocks.update.")
    changed = dict(row)
    for name, value in body.items():
        if name in ("in_trash", "archived"):
            changed["in_trash"] = bool(value)
        elif name == "type":
            continue
        elif name != row["type"]:
            raise invalid(f"Block type {row['type']} cannot be updated with `{name}`: a block's type never changes.")
        elif isinstance(value, dict):
            changed[name] = {**row.get(name, {}), **content(call.state, value)}
    changed.update(stamps(call.user, created=False))
    call.state.update("notion_blocks", changed)
    return answer_block(resources, call.state, changed)


def delete_block(resources: Resources, call: Call) -> Any:
    kind, row = holder(call.state, call.params["block_id"], editing=True)
    edited = stamps(call.user, created=False)
    if kind == "page":
        row = {**row, "in_trash": True, **edited}
        call.state.update("notion_pages", row)
        return resources.schemas.fill(objects.page_block(call.state, row), _block_schemas(resources)["child_page"])
    own = objects.own_object(call.state, row)
    if own is not None:  # a child database's block: the database goes to the trash
        call.state.update("notion_databases", {**own, "in_trash": True, **edited})
    row = {**row, "in_trash": True, **edited}
    call.state.update("notion_blocks", row)
    return answer_block(resources, call.state, row)
