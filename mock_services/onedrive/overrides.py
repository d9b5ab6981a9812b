"""OneDrive over the pack generated from Microsoft Graph's metadata: each person's drive and its
items (folders and files), addressed by id, by `root`, or by path (`root:/Design/notes.txt:`,
`{folder-id}:/notes.txt:`); children listed and made (folders), files uploaded whole and
downloaded (`/content`), renamed and moved (PATCH), and deleted with what they hold. A file's
bytes are kept by SHA-1 (mock_services/blobs.py), read through to the seed's `contents/`;
sizes and child counts are computed when read."""

from __future__ import annotations

import mimetypes
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from fastapi.responses import Response

from mock_services import blobs
from mock_services.rest import graph
from mock_services.rest.errors import RestError
from mock_services.rest.graph import ALIASES, credentials, identify, prepare
from mock_services.rest.openapi import styles
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import Call
from mock_services.store import Row

DRIVES, ITEMS, USERS = "onedrive_drives", "onedrive_items", "onedrive_users"
SEEDED = Path(__file__).parent / "templates" / "contents"
IDS = {ITEMS: {"kind": "prefix", "prefix": "01", "length": 32}, USERS: {"kind": "uuid"}}
MISSING = {ITEMS: "Item not found", DRIVES: "Drive not found",
           USERS: graph.NO_USER}
error_body = graph.error_body_for("itemNotFound")
ITEM = {"$ref": "#/components/schemas/microsoft.graph.driveItem"}
HIDDEN = ("content_sha1",)


def drive(call: Call) -> Row:
    """The drive the path names (`/drives/{id}`), or the user's own (`/users/{id}/drive`, `/me/drive`)."""
    found = call.state.first(DRIVES, id=call.params["drive_id"]) if "drive_id" in call.params else \
        call.state.first(DRIVES, user_id=call.params.get("user_id"))
    if found is None:
        raise RestError(404, "itemNotFound", MISSING[DRIVES])
    return found


def _root(call: Call, drive_id: str) -> Row:
    return next(r for r in call.state.rows(ITEMS, drive_id=drive_id) if "root" in r)


def _child(call: Call, parent: Row, name: str) -> Row | None:
    return next((r for r in call.state.rows(ITEMS, drive_id=parent["drive_id"]) if
                 (r.get("parentReference") or {}).get("id") == parent["id"] and r["name"].lower() == name.lower()), None)


def resolve(call: Call, key: str, missing_ok: bool = False) -> tuple[Row | None, Row, str]:
    """(the item `key` names or None, the deepest folder found on its way, the name left): an id,
    `root`, or `root:/a/b.txt:` / `{id}:/b.txt:` (a path below an item)."""
    drive_id = drive(call)["id"]
    base, _, rest = unquote(key).partition(":")
    start = _root(call, drive_id) if base == "root" else call.state.first(ITEMS, id=base, drive_id=drive_id)
    if start is None:
        raise RestError(404, "itemNotFound", MISSING[ITEMS])
    parts = [p for p in rest.strip(":").split("/") if p]
    node: Row | None = start
    for i, name in enumerate(parts):
        found = _child(call, node, name)
        if found is None:
            if missing_ok and i == len(parts) - 1:
                return None, node, name
            raise RestError(404, "itemNotFound", MISSING[ITEMS])
        node = found
    return node, node, ""


def item(call: Call) -> Row:
    return resolve(call, call.params.get("driveItem_id", "root"))[0]  # type: ignore[return-value]


def _path(call: Call, row: Row) -> str:
    """`/drive/root:/Design` : where a row's parent is, as parentReference.path says."""
    names, node = [], row
    while node is not None and "root" not in node:
        names.insert(0, node["name"])
        parent = (node.get("parentReference") or {}).get("id")
        node = call.state.first(ITEMS, id=parent) if parent else None
    return "/drive/root:" + ("/" + "/".join(names[:-1]) if len(names) > 1 else "")


def shown(call: Call, row: Row) -> Row:
    """An item as read: its folder's child count and its path, computed now."""
    out = {k: v for k, v in row.items() if k not in HIDDEN}
    if "folder" in row:
        count = sum((r.get("parentReference") or {}).get("id") == row["id"] for r in
                    call.state.rows(ITEMS, drive_id=row["drive_id"]))
        out["folder"] = {**(row.get("folder") or {}), "childCount": count}
    if "root" not in row:
        out["parentReference"] = {**(row.get("parentReference") or {}), "path": _path(call, row)}
    return out


def _new(resources: Resources, call: Call, parent: Row, name: str, fields: dict) -> Row:
    me = graph.identity(graph.me(call))
    at = graph.now()
    row = {"id": styles.new_id(IDS[ITEMS], {r["id"] for r in call.state.rows(ITEMS)}), "drive_id": parent["drive_id"],
           "name": name, "createdDateTime": at, "lastModifiedDateTime": at, "createdBy": me, "lastModifiedBy": me,
           "parentReference": {"driveId": parent["drive_id"], "driveType": "business", "id": parent["id"]},
           "size": 0, **fields}
    row["webUrl"] = f"https://acme-my.sharepoint.com/{_path(call, row)[7:]}/{name}".replace(":", "")
    call.state.insert(ITEMS, row)
    return row


def get_item(resources: Resources, call: Call) -> Any:
    return graph.selected(call, resources.present(call, shown(call, item(call)), ITEM))


def get_root(resources: Resources, call: Call) -> Any:
    return resources.present(call, shown(call, _root(call, drive(call)["id"])), ITEM)


def children(resources: Resources, call: Call) -> Any:
    parent = item(call)
    if "folder" not in parent:
        return graph.listing(resources, call, [])
    rows = [shown(call, r) for r in call.state.rows(ITEMS, drive_id=parent["drive_id"])
            if (r.get("parentReference") or {}).get("id") == parent["id"]]
    return graph.listing(resources, call, rows, "name")


def create_child(resources: Resources, call: Call) -> Any:
    """A folder (or an empty file) in a folder; a taken name fails, is renamed, or is replaced,
    as `@microsoft.graph.conflictBehavior` says (fail by default)."""
    parent = item(call)
    given = call.body if isinstance(call.body, dict) else {}
    name = str(given.get("name") or "")
    if not name or "folder" not in parent:
        raise RestError(400, "invalidRequest", "A child needs a name and a folder to be in.")
    behavior = given.get("@microsoft.graph.conflictBehavior", "fail")
    taken = _child(call, parent, name)
    if taken is not None and behavior == "fail":
        raise RestError(409, "nameAlreadyExists", "The specified item name already exists.")
    if taken is not None and behavior == "replace":
        _remove(call, taken)
    elif taken is not None:
        stem, dot, ext = name.rpartition(".") if "." in name else (name, "", "")
        name = next(f"{stem} {n}{dot}{ext}" for n in range(1, 1000) if _child(call, parent, f"{stem} {n}{dot}{ext}")
                    is None)
    facet = {"folder": {"childCount": 0}} if "folder" in given else {"file": {"mimeType": "application/octet-stream"}}
    made = _new(resources, call, parent, name, facet)
    call.status = 201
    return resources.present(call, shown(call, made), ITEM)


def upload(resources: Resources, call: Call) -> Any:
    """PUT /content: a new file where the path names none, or new bytes for the file it names."""
    data = call.body if isinstance(call.body, bytes) else b""
    found, folder, name = resolve(call, call.params.get("driveItem_id", "root"), missing_ok=True)
    sha1 = blobs.keep(call.state, data, SEEDED)
    facet = {"file": {"mimeType": mimetypes.guess_type(name or (found or {}).get("name", ""))[0] or
                      "application/octet-stream", "hashes": {"sha1Hash": sha1.upper()}},
             "size": len(data), "content_sha1": sha1}
    if found is None:
        made = _new(resources, call, folder, name, facet)
        call.status = 201
        return resources.present(call, shown(call, made), ITEM)
    if "folder" in found:
        raise RestError(400, "invalidRequest", "Cannot upload content to a folder.")
    row = {**found, **facet, "lastModifiedDateTime": graph.now(), "lastModifiedBy": graph.identity(graph.me(call))}
    call.state.update(ITEMS, row)
    return resources.present(call, shown(call, row), ITEM)


def download(resources: Resources, call: Call) -> Any:
    found = item(call)
    data = blobs.read(call.state, found.get("content_sha1"), SEEDED)
    if "folder" in found or data is None:
        raise RestError(404, "itemNotFound", "The item has no content.")
    return Response(data, media_type=(found.get("file") or {}).get("mimeType") or "application/octet-stream")


def update(resources: Resources, call: Call) -> Any:
    """A rename (`name`) and a move (`parentReference.id`), as Graph's PATCH makes them."""
    found = item(call)
    given = call.body if isinstance(call.body, dict) else {}
    row = {**found, **{k: v for k, v in given.items() if k in ("name", "description")},
           "lastModifiedDateTime": graph.now()}
    target = (given.get("parentReference") or {}).get("id")
    if target:
        folder = resolve(call, target)[0] or {}
        if "folder" not in folder:
            raise RestError(400, "invalidRequest", "The destination is not a folder.")
        row["parentReference"] = {**(row.get("parentReference") or {}), "id": folder["id"]}
    call.state.update(ITEMS, row)
    return resources.present(call, shown(call, row), ITEM)


def _remove(call: Call, row: Row) -> None:
    for child in [r for r in call.state.rows(ITEMS, drive_id=row["drive_id"])
                  if (r.get("parentReference") or {}).get("id") == row["id"]]:
        _remove(call, child)
    call.state.delete(ITEMS, row)


def delete(resources: Resources, call: Call) -> None:
    found = item(call)
    if "root" in found:
        raise RestError(403, "accessDenied", "The root of a drive cannot be deleted.")
    _remove(call, found)


def user_drive(resources: Resources, call: Call) -> Any:
    found = call.state.first(DRIVES, user_id=call.params["user_id"])
    if found is None:
        raise RestError(404, "itemNotFound", MISSING[DRIVES])
    return resources.present(call, found, resources.response(call.operation.short_id)[1])


def drives(resources: Resources, call: Call) -> Any:
    return graph.listing(resources, call, call.state.rows(DRIVES, user_id=call.user))


ADDRESSED = re.compile(r"(/root|/items/[^/:]+):(/[^:]*):?(?=/|$)")  # `root:/a/b.txt:` then `/content`, or alone


def addressed(path: str) -> str:
    """An item addressed by its path (`drive/root:/Design/notes.txt:/content`) as one segment of
    its operation's path (`drive/items/root:%2FDesign%2Fnotes.txt:/content`): the slashes inside
    the colons are the item's own."""
    return ADDRESSED.sub(lambda m: ("/items/root" if m.group(1) == "/root" else m.group(1)) + ":" +
                         quote(m.group(2), safe="") + ":", path, count=1)


EXTRA_ROUTES = [graph.token_routes, graph.path_routes(addressed)]
HANDLERS = {"drive.item_GetContent": download, "drive.item_SetContent": upload,
            "drive.item_ListChildren": children, "drive.item_CreateChildren": create_child,
            "drive_GetItem": get_item, "drive_UpdateItem": update, "drive_DeleteItem": delete,
            "drive_GetRoot": get_root, "user_GetDrive": user_drive, "drive_ListDrive": drives,
            "user.drive.item_GetContent": download, "user.drive.item_SetContent": upload,
            "user.drive.item_ListChildren": children, "user.drive.item_CreateChildren": create_child,
            "user.drive.root_ListChildren": children, "user.drive.root_CreateChildren": create_child,
            "user.drive_GetItem": get_item, "user.drive_UpdateItem": update, "user.drive_DeleteItem": delete,
            "user.drive_GetRoot": get_root}

__all__ = ["ALIASES", "EXTRA_ROUTES", "HANDLERS", "IDS", "MISSING", "credentials", "error_body", "identify",
           "prepare"]
