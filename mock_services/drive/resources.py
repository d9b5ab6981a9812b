"""Rows as Drive v3's resources (the discovery document's field names), Drive's ids and times,
and the fields Drive answers with when a caller names none (Drive answers a few, not all)."""

from __future__ import annotations

from html import escape
from typing import Any
from urllib.parse import quote

from mock_services import clock
from mock_services.drive import contents
from mock_services.drive.access import View, rank
from mock_services.rest import fields
from mock_services.rest.router import Call
from mock_services.store import Row

ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
# What Drive answers without `fields` (a few fields of each resource).
DEFAULTS = {"File": "kind,id,name,mimeType", "FileList": "kind,incompleteSearch,nextPageToken,files(kind,id,name,mimeType)",
            "Permission": "kind,id,type,emailAddress,role,domain,allowFileDiscovery",
            "PermissionList": "kind,nextPageToken,permissions(kind,id,type,emailAddress,role,domain,allowFileDiscovery)",
            "Revision": "kind,id,mimeType,modifiedTime",
            "RevisionList": "kind,nextPageToken,revisions(kind,id,mimeType,modifiedTime)",
            "ChangeList": "kind,nextPageToken,newStartPageToken,changes(kind,changeType,time,removed,fileId,"
                          "file(kind,id,name,mimeType))"}
EXPORT_EXTENSIONS = {"text/plain": "txt", "text/html": "html", "text/csv": "csv"}


def new_id(prefix: str = "1", length: int = 32) -> str:
    return prefix + clock.choice(ID_ALPHABET, length)


def stamp() -> str:
    """Now, as Drive writes times (RFC 3339, milliseconds, UTC)."""
    return clock.utcnow().strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def drop_none(data: dict) -> dict:
    return {k: v for k, v in data.items() if v is not None}


def defaulted(call: Call, answer: dict, schema: str) -> dict:
    """`answer` as Drive gives it to a caller who named no `fields` (the engine selects the
    caller's own `fields` from the whole answer)."""
    if call.arg("fields"):
        return answer
    return fields.select(answer, fields.parse(DEFAULTS[schema]))


def user_json(seen: View, user_id: str | None, me: str) -> dict | None:
    user = seen.users.get(user_id or "")
    if user is None:
        return None
    return drop_none({"kind": "drive#user", "displayName": user.get("display_name"), "emailAddress": user.get("email"),
                      "permissionId": user["id"], "me": user["id"] == me,
                      "photoLink": f"https://lh3.googleusercontent.com/a/default-user=s64?u={user['id']}"})


def permission_json(seen: View, row: Row) -> dict:
    user = seen.user_by_email(str(row.get("email", ""))) if row.get("email") else None
    return drop_none({"kind": "drive#permission", "id": row["id"], "type": row["type"], "role": row["role"],
                      "emailAddress": row.get("email"), "domain": row.get("domain"),
                      "displayName": user.get("display_name") if user else None,
                      "allowFileDiscovery": row.get("allow_file_discovery") if row["type"] in ("anyone", "domain") else None,
                      "expirationTime": row.get("expiration_time"), "deleted": False if row["type"] == "user" else None,
                      "pendingOwner": row.get("pending_owner") or None})


def owner_permission(seen: View, row: Row) -> Row | None:
    """The owner's permission: Drive lists it beside the others (read from the file's owner)."""
    owner = seen.users.get(row.get("owner_id") or "")
    if owner is None:
        return None
    return {"file_id": row["id"], "id": owner["id"], "type": "user", "role": "owner", "email": owner.get("email")}


def permissions_of(seen: View, row: Row) -> list[Row]:
    owner = owner_permission(seen, row)
    return ([owner] if owner else []) + seen.permissions.get(row["id"], [])


def _links(row: Row) -> dict:
    file_id, mime = row["id"], row["mime_type"]
    if mime == contents.FOLDER:
        return {"webViewLink": f"https://drive.google.com/drive/folders/{file_id}"}
    if contents.is_google_type(mime):
        kind = mime.rsplit(".", 1)[1]
        return {"webViewLink": f"https://docs.google.com/{kind}/d/{file_id}/edit?usp=drivesdk",
                "exportLinks": {target: f"https://docs.google.com/feeds/download/{kind}s/Export?id={file_id}"
                                        f"&exportFormat={EXPORT_EXTENSIONS[target]}"
                                for target in contents.EXPORTS.get(mime, ())} or None}
    return {"webViewLink": f"https://drive.google.com/file/d/{file_id}/view?usp=drivesdk",
            "webContentLink": f"https://drive.google.com/uc?id={file_id}&export=download"}


def capabilities(role: str, row: Row, trashed: bool) -> dict:
    folder = row["mime_type"] == contents.FOLDER
    write, own = rank(role) >= rank("writer") and not trashed, role == "owner"
    return {"canEdit": write, "canComment": rank(role) >= rank("commenter") and not trashed, "canShare": write,
            "canCopy": not folder and not trashed, "canDownload": not folder, "canDelete": own,
            "canTrash": own, "canUntrash": own, "canRename": write, "canAddChildren": folder and write,
            "canListChildren": folder, "canRemoveChildren": folder and write, "canReadRevisions": write,
            "canModifyContent": write, "canMoveItemWithinDrive": write, "canChangeCopyRequiresWriterPermission": own}


def file_json(call: Call, seen: View, row: Row) -> dict[str, Any]:
    me, mime = call.user, row["mime_type"]
    role, trashed = seen.role(row, me), seen.trashed(row)
    shared_with_me = seen.direct(row, me) if row.get("owner_id") != me else None
    permissions = permissions_of(seen, row)
    binary = not contents.is_google_type(mime)
    extension = row["name"].rsplit(".", 1)[1] if binary and "." in row["name"].strip(".") else None
    answer = {
        "kind": "drive#file", "id": row["id"], "name": row["name"], "mimeType": mime,
        "parents": row.get("parents") or None, "description": row.get("description"),
        "starred": bool(row.get("starred")), "trashed": trashed, "explicitlyTrashed": bool(row.get("trashed")),
        "trashedTime": row.get("trashed_time") if trashed else None,
        "trashingUser": user_json(seen, row.get("trashing_user_id"), me) if row.get("trashed") else None,
        "createdTime": row.get("created_time"), "modifiedTime": row.get("modified_time"),
        "modifiedByMe": row.get("modified_by_id") == me,
        "modifiedByMeTime": row.get("modified_time") if row.get("modified_by_id") == me else None,
        "viewedByMe": row.get("owner_id") == me,
        "lastModifyingUser": user_json(seen, row.get("modified_by_id"), me),
        "owners": [u for u in [user_json(seen, row.get("owner_id"), me)] if u],
        "ownedByMe": row.get("owner_id") == me, "shared": len(permissions) > 1,
        "sharedWithMeTime": shared_with_me.get("created_time") if shared_with_me else None,
        "sharingUser": user_json(seen, shared_with_me.get("granted_by"), me) if shared_with_me else None,
        "permissionIds": [p["id"] for p in permissions],
        "permissions": [permission_json(seen, p) for p in permissions] if rank(role) >= rank("writer") else None,
        "capabilities": capabilities(role, row, trashed), "version": str(row.get("version") or 1),
        "iconLink": f"https://drive-thirdparty.googleusercontent.com/16/type/{quote(mime, safe='')}",
        "hasThumbnail": False, "thumbnailVersion": "0", "spaces": ["drive"], "isAppAuthorized": False,
        "writersCanShare": True, "copyRequiresWriterPermission": False, "viewersCanCopyContent": True,
        "quotaBytesUsed": str(row.get("size") or 0) if binary else "0",
        "properties": row.get("properties") or None, "appProperties": row.get("app_properties") or None,
        **_links(row)}
    if binary and mime != contents.FOLDER:
        answer.update({"size": str(row.get("size") or 0), "md5Checksum": row.get("md5"),
                       "sha1Checksum": row.get("sha1"), "sha256Checksum": row.get("sha256"),
                       "headRevisionId": row.get("head_revision_id"), "originalFilename": row.get("original_filename"),
                       "fullFileExtension": extension, "fileExtension": extension.rsplit(".", 1)[-1] if extension else None})
    return drop_none(answer)


def revision_json(seen: View, row: Row, me: str) -> dict:
    return drop_none({"kind": "drive#revision", "id": row["id"], "mimeType": row.get("mime_type"),
                      "modifiedTime": row.get("modified_time"), "keepForever": bool(row.get("keep_forever")),
                      "published": bool(row.get("published")) if row.get("published") is not None else None,
                      "lastModifyingUser": user_json(seen, row.get("modified_by_id"), me),
                      "originalFilename": row.get("original_filename"), "md5Checksum": row.get("md5"),
                      "size": str(row["size"]) if row.get("size") is not None else None})


def reply_json(seen: View, row: Row, me: str) -> dict:
    deleted = bool(row.get("deleted"))
    return drop_none({"kind": "drive#reply", "id": row["id"], "createdTime": row.get("created_time"),
                      "modifiedTime": row.get("modified_time"), "author": user_json(seen, row.get("author_id"), me),
                      "deleted": deleted, "content": None if deleted else row.get("content"),
                      "htmlContent": None if deleted or not row.get("content") else _html(row["content"]),
                      "action": row.get("action")})


def comment_json(seen: View, row: Row, replies: list[Row], me: str) -> dict:
    deleted = bool(row.get("deleted"))
    return drop_none({"kind": "drive#comment", "id": row["id"], "createdTime": row.get("created_time"),
                      "modifiedTime": row.get("modified_time"), "author": user_json(seen, row.get("author_id"), me),
                      "deleted": deleted, "resolved": bool(row.get("resolved")),
                      "content": None if deleted else row.get("content"),
                      "htmlContent": None if deleted else _html(row.get("content") or ""),
                      "anchor": row.get("anchor"), "quotedFileContent": row.get("quoted_file_content"),
                      "replies": [reply_json(seen, r, me) for r in replies]})


def _html(text: str) -> str:
    return escape(text).replace("\n", "<br>")
