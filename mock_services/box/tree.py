"""The folder tree's rules, shared by every handler that changes it: Box's name rules, one
name per folder, no folder inside itself, trash and restore of whole subtrees, the etag and
sequence id each change bumps, and the event each change leaves in the stream."""

from __future__ import annotations

from mock_services.box import errors
from mock_services.box.access import ROOT, TABLES
from mock_services.box.resources import mini, now
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row

EVENTS_KEY = "box:events"
MAX_EVENTS = 2000
KINDS = tuple(TABLES)


def check_name(name: object) -> str:
    if not isinstance(name, str) or not name.strip():
        raise errors.bad_request("Item name cannot be empty", name="name", reason="invalid_parameter")
    if len(name) > 255:
        raise errors.bad_request("Item name too long", name="name", reason="item_name_too_long")
    if "/" in name or "\\" in name or name in (".", "..") or name != name.rstrip() or not name.isprintable():
        raise errors.bad_request("Item name invalid", name="name", reason="item_name_invalid")
    return name


def parent_id(body: object) -> str:
    """`{"parent": {"id": "123"}}`'s id; "" for anything else (a scalar parent names no folder)."""
    parent = body.get("parent") if isinstance(body, dict) else None
    return str(parent.get("id") or "") if isinstance(parent, dict) else ""


def children(call: Call, folder_id: str, status: str = "active") -> list[Row]:
    found = []
    for kind in KINDS:
        found += [r for r in call.state.rows(TABLES[kind], parent_id=folder_id) if r.get("item_status") == status]
    return found


def ensure_free(call: Call, folder_id: str, name: str, kind: str, but: str | None = None) -> None:
    """409 `item_name_in_use` where the folder holds an item of that name (names ignore case)."""
    for row in children(call, folder_id):
        if row["id"] != but and row.get("name", "").lower() == name.lower():
            raise errors.name_in_use(mini(call, row), as_list=kind == "folder")


def ensure_not_inside(call: Call, folder_id: str, target_parent: str) -> None:
    current: str | None = target_parent
    while current is not None:
        if current == folder_id:
            raise errors.bad_request("Cannot move a folder into itself or one of its subfolders",
                                     reason="invalid_parameter")
        row = call.state.first("box_folders", id=current)
        current = row.get("parent_id") if row else None


def touched(call: Call, row: Row, event: str | None = None) -> Row:
    """A changed item: a new etag and sequence id, who changed it and when; and its event."""
    sequence = int(row.get("sequence_id") or 0) + 1
    row.update(sequence_id=str(sequence), etag=str(sequence), modified_at=now(), modified_by_id=call.user)
    if event:
        record(call, event, row)
    return row


def check_etag(call: Call, row: Row) -> None:
    expected = call.params.get("if-match")
    if expected is not None and expected != str(row.get("etag")):
        raise errors.precondition_failed()


def record(call: Call, event_type: str, row: Row) -> None:
    """An event for `GET /events`; kept beside the rows, so it never shows in a diff."""
    events = call.state.meta(EVENTS_KEY) or []
    events.append({"type": "event", "event_id": f"{len(events) + 1:08d}", "event_type": event_type,
                   "created_at": now(), "created_by_id": call.user,
                   "source": {"type": row.get("type"), "id": row["id"], "name": row.get("name")}})
    call.state.set_meta(EVENTS_KEY, events[-MAX_EVENTS:])


def trash(call: Call, row: Row) -> None:
    """The item and everything under it go to the trash (Box keeps them 30 days)."""
    when = now()
    stack = [row]
    while stack:
        item = stack.pop()
        item.update(item_status="trashed", trashed_at=when)
        call.state.update(TABLES[item["type"]], touched(call, item))
        if item["type"] == "folder":
            stack += children(call, item["id"])
    record(call, "ITEM_TRASH", row)


def restore(call: Call, row: Row, name: str | None, parent_id: str | None) -> Row:
    parent_id = parent_id or row.get("parent_id") or ROOT
    parent = call.state.first("box_folders", id=parent_id)
    if parent is None or parent.get("item_status") != "active":
        raise RestError(409, "parent_folder_deleted", "The parent folder is deleted")
    name = check_name(name) if name else row["name"]
    ensure_free(call, parent_id, name, row["type"])
    when = row.get("trashed_at")  # what went to the trash with it comes back with it
    stack = [row]
    while stack:
        item = stack.pop()
        if item is row or item.get("trashed_at") == when:
            item.update(item_status="active", trashed_at=None)
            call.state.update(TABLES[item["type"]], item)
        if item["type"] == "folder":
            stack += children(call, item["id"], status="trashed")
    row.update(name=name, parent_id=parent_id)
    call.state.update(TABLES[row["type"]], touched(call, row, "ITEM_UNDELETE_VIA_TRASH"))
    return row


def purge(call: Call, row: Row) -> None:
    stack = [row]
    while stack:
        item = stack.pop()
        if item["type"] == "folder":
            stack += children(call, item["id"], "trashed") + children(call, item["id"])
        call.state.delete(TABLES[item["type"]], item)
