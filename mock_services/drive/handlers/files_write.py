"""files.create (metadata; uploads come through uploads.py to the same functions), files.update
(metadata, new contents, `addParents`/`removeParents`, trash), files.copy, files.delete and
files.emptyTrash."""

from __future__ import annotations

from dataclasses import dataclass

from mock_services.drive import access, contents, tree
from mock_services.drive.resources import defaulted, file_json, stamp
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row

# File fields a caller writes, as columns; the rest of the resource is Drive's to say.
WRITABLE = {"name": "name", "description": "description", "starred": "starred", "mimeType": "mime_type",
            "modifiedTime": "modified_time", "originalFilename": "original_filename"}
MAPS = {"properties": "properties", "appProperties": "app_properties"}
NOT_WRITABLE = {"id", "kind", "size", "owners", "permissions", "md5Checksum", "createdTime", "version"}


@dataclass(frozen=True)
class Media:
    """An upload's bytes and the type its sender gave them."""

    data: bytes
    media_type: str


def _metadata(call: Call, body: object) -> dict:
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise RestError(400, "parseError", "Parse Error")
    for name, kind in (("name", str), ("description", str), ("mimeType", str), ("starred", bool), ("trashed", bool)):
        if body.get(name) is not None and not isinstance(body[name], kind):
            raise RestError(400, "invalid", f"Invalid value for {name}")
    for name in MAPS:
        if body.get(name) is not None and not isinstance(body[name], dict):
            raise RestError(400, "invalid", f"Invalid value for {name}: an object of strings")
    return body


def _merged(current: dict | None, given: dict) -> dict:
    """Properties merge; a key given as null is removed (as Drive does)."""
    merged = dict(current or {})
    for key, value in given.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = str(value)
    return merged


def create_file(call: Call, metadata: dict, media: Media | None) -> dict:
    metadata = _metadata(call, metadata)
    mime = metadata.get("mimeType") or (media.media_type if media else "application/octet-stream")
    if mime == contents.FOLDER and media:
        raise RestError(400, "badRequest", "A folder cannot have contents.")
    row: Row = {"id": tree.fresh_id(call, metadata.get("id")),
                "name": metadata.get("name") or "Untitled",
                "mime_type": mime, "parents": tree.check_parents(call, metadata.get("parents")),
                "description": metadata.get("description"), "starred": bool(metadata.get("starred")),
                "properties": _merged({}, metadata.get("properties") or {}) or None,
                "app_properties": _merged({}, metadata.get("appProperties") or {}) or None}
    for field in ("createdTime", "modifiedTime"):
        if metadata.get(field):
            row["created_time" if field == "createdTime" else "modified_time"] = metadata[field]
    row = tree.new_file(call, {k: v for k, v in row.items() if v is not None})
    if media is not None or contents.is_google_type(mime) and mime in contents.EXPORTS:
        data = media.data if media else b""
        if media and contents.is_google_type(mime):
            data = contents.imported(mime, media.media_type, data, row["name"])
        tree.set_content(call, row, data, bool(call.arg("keepRevisionForever")), metadata.get("originalFilename"))
        tree.save(call, row, change=False)
    return defaulted(call, file_json(call, access.view(call), row), "File")


def create(call: Call) -> dict:
    return create_file(call, call.body, None)


def _move(call: Call, row: Row) -> bool:
    adding = [p for p in str(call.arg("addParents", "")).split(",") if p.strip()]
    removing = [p for p in str(call.arg("removeParents", "")).split(",") if p.strip()]
    if not adding and not removing:
        return False
    root = access.root_id(call)
    parents = [p for p in row.get("parents") or [] if p not in {root if r == "root" else r for r in removing}]
    for parent_id in adding:
        folder = tree.parent_for_writing(call, parent_id)
        seen = access.view(call)
        if folder["id"] == row["id"] or any(a["id"] == row["id"] for a in seen.ancestors(folder)):
            raise RestError(400, "invalidParent", "A folder cannot be moved into itself or a folder inside it.")
        if folder["id"] not in parents:
            parents.append(folder["id"])
    if len(parents) > 1:
        raise RestError(403, "cannotAddParent", "Increasing the number of parents is not allowed.")
    row["parents"] = parents
    return True


def update_file(call: Call, metadata: dict, media: Media | None) -> dict:
    metadata = _metadata(call, metadata)
    least = "owner" if "trashed" in metadata else "writer" if set(metadata) - {"starred"} or media or \
        call.arg("addParents") or call.arg("removeParents") else "reader"
    row = access.file(call, call.params["fileId"], least)
    if "parents" in metadata:
        raise RestError(403, "fieldNotWritable", "The resource body includes fields which are not directly writable.")
    if set(metadata) & NOT_WRITABLE:
        raise RestError(403, "fieldNotWritable", "The resource body includes fields which are not directly writable.")
    touched = _move(call, row)
    for field, column in WRITABLE.items():
        if field in metadata and metadata[field] is not None and metadata[field] != row.get(column):
            row[column] = metadata[field]
            touched = touched or field != "starred"
    for field, column in MAPS.items():
        if isinstance(metadata.get(field), dict):
            row[column] = _merged(row.get(column), metadata[field]) or None
    if "trashed" in metadata and bool(metadata["trashed"]) != bool(row.get("trashed")):
        row.update({"trashed": bool(metadata["trashed"]), "trashed_time": stamp() if metadata["trashed"] else None,
                    "trashing_user_id": call.user if metadata["trashed"] else None})
    if media is not None:
        data = media.data
        if contents.is_google_type(row["mime_type"]):
            data = contents.imported(row["mime_type"], media.media_type, data, row["name"])
        tree.set_content(call, row, data, bool(call.arg("keepRevisionForever")))
        touched = True
    if touched:
        row.update({"modified_by_id": call.user, "modified_time": metadata.get("modifiedTime") or stamp()})
    row["version"] = int(row.get("version") or 1) + 1
    tree.save(call, row)
    return defaulted(call, file_json(call, access.view(call), row), "File")


def update(call: Call) -> dict:
    return update_file(call, call.body, None)


def copy(call: Call) -> dict:
    source = access.file(call, call.params["fileId"])
    if source["mime_type"] == contents.FOLDER:
        raise RestError(403, "cannotCopyFile", "This file cannot be copied by the user.")
    metadata = _metadata(call, call.body)
    seen = access.view(call)
    parents = metadata.get("parents")
    if parents is None:
        writable = [p for p in source.get("parents") or [] if p in seen.files
                    and access.rank(seen.role(seen.files[p], call.user)) >= access.rank("writer")]
        parents = writable[:1]
    row: Row = {"id": tree.fresh_id(call, metadata.get("id")), "name": metadata.get("name") or f"Copy of {source['name']}",
                "mime_type": source["mime_type"], "parents": tree.check_parents(call, parents),
                "description": metadata.get("description", source.get("description")),
                "properties": source.get("properties"), "app_properties": source.get("app_properties")}
    row = tree.new_file(call, {k: v for k, v in row.items() if v is not None})
    if source.get("sha1"):
        tree.set_content(call, row, contents.read(call.state, source["sha1"]) or b"",
                         bool(call.arg("keepRevisionForever")), source.get("original_filename"))
        tree.save(call, row, change=False)
    return defaulted(call, file_json(call, access.view(call), row), "File")


def delete(call: Call) -> None:
    row = access.file(call, call.params["fileId"], "owner")
    if row["id"] == access.root_id(call):
        raise RestError(403, "cannotDeleteRootFolder", "The root folder cannot be deleted.")
    tree.remove(call, row)


def empty_trash(call: Call) -> None:
    seen = access.view(call)
    for row in [r for r in seen.files.values() if r.get("trashed") and r.get("owner_id") == call.user]:
        if call.state.first("drive_files", id=row["id"]):
            tree.remove(call, row)


HANDLERS = {"files.create": create, "files.update": update, "files.copy": copy, "files.delete": delete,
            "files.emptyTrash": empty_trash}
