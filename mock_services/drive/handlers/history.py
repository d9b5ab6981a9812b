"""revisions.* (one per content update; `alt=media` gives a revision's bytes), changes.* (the
log of what changed, as each user may see it, from a page token on) and about.get."""

from __future__ import annotations

from mock_services.drive import access, contents
from mock_services.drive.handlers.files_read import download
from mock_services.drive.handlers.paging import page
from mock_services.drive.resources import defaulted, file_json, revision_json, user_json
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row

QUOTA = 15 * 1024 ** 3
MAX_UPLOAD = 5 * 1024 ** 4


def _revision(call: Call, row: Row) -> Row:
    found = call.state.first("drive_revisions", id=call.params["revisionId"], file_id=row["id"])
    if found is None:
        raise RestError(404, "notFound", f"Revision not found: {call.params['revisionId']}.")
    return found


def list_revisions(call: Call) -> dict:
    row = access.file(call, call.params["fileId"], "writer")
    found = call.state.rows("drive_revisions", file_id=row["id"])
    shown, following = page(call, found, row["id"], default_size=200, largest=1000)
    answer = {"kind": "drive#revisionList", "revisions": [revision_json(access.view(call), r, call.user) for r in shown]}
    return defaulted(call, {**answer, "nextPageToken": following} if following else answer, "RevisionList")


def get_revision(call: Call) -> object:
    row = access.file(call, call.params["fileId"], "writer")
    revision = _revision(call, row)
    if call.arg("alt") == "media":
        return download(call, row, revision.get("sha1"))
    return defaulted(call, revision_json(access.view(call), revision, call.user), "Revision")


def update_revision(call: Call) -> dict:
    row = access.file(call, call.params["fileId"], "writer")
    revision = _revision(call, row)
    body = call.body if isinstance(call.body, dict) else {}
    if "keepForever" in body:
        revision["keep_forever"] = bool(body["keepForever"])
    if "published" in body:
        if not contents.is_google_type(row["mime_type"]):
            raise RestError(400, "invalid", "Only revisions of Docs Editors files can be published.")
        revision["published"] = bool(body["published"])
    call.state.update("drive_revisions", revision)
    return defaulted(call, revision_json(access.view(call), revision, call.user), "Revision")


def delete_revision(call: Call) -> None:
    row = access.file(call, call.params["fileId"], "writer")
    revision = _revision(call, row)
    if contents.is_google_type(row["mime_type"]):
        raise RestError(403, "revisionDeletionNotSupported", "Revisions of Docs Editors files cannot be deleted.")
    if revision["id"] == row.get("head_revision_id"):
        raise RestError(400, "cannotDeleteHeadRevision", "The head revision of a file cannot be deleted.")
    call.state.delete("drive_revisions", revision)


def start_page_token(call: Call) -> dict:
    latest = max((int(c["id"]) for c in call.state.rows("drive_changes")), default=0)
    return {"kind": "drive#startPageToken", "startPageToken": str(latest + 1)}


def list_changes(call: Call) -> dict:
    token = str(call.params["pageToken"])
    if not token.isdigit():
        raise RestError(400, "invalid", "Invalid Value")
    seen = access.view(call)
    latest: dict[str, Row] = {}
    for change in call.state.rows("drive_changes"):
        if int(change["id"]) >= int(token):
            latest.pop(change["file_id"], None)
            latest[change["file_id"]] = change  # a file's latest change only, in the order changes came
    visible = []
    for change in latest.values():
        row = seen.files.get(change["file_id"])
        if change.get("removed") or row is None:
            if call.arg("includeRemoved", True) and call.user in (change.get("audience") or []):
                visible.append((change, None))
        elif seen.role(row, call.user) != "none":
            visible.append((change, row))
    size = call.arg("pageSize", 100)
    if not 1 <= size <= 1000:
        raise RestError(400, "invalid", f"Invalid value '{size}'. Values must be within the range: [1, 1000]")
    shown = visible[:size]
    answer: dict = {"kind": "drive#changeList", "changes": [
        {"kind": "drive#change", "changeType": "file", "type": "file", "time": change["time"],
         "removed": row is None, "fileId": change["file_id"],
         **({"file": file_json(call, seen, row)} if row is not None else {})} for change, row in shown]}
    if len(visible) > size:
        answer["nextPageToken"] = str(int(shown[-1][0]["id"]) + 1)
    else:
        answer["newStartPageToken"] = start_page_token(call)["startPageToken"]
    return defaulted(call, answer, "ChangeList")


def about(call: Call) -> dict:
    if not call.arg("fields"):
        raise RestError(400, "required", "The 'fields' parameter is required for this method.")
    seen = access.view(call)
    owned = [f for f in seen.files.values() if f.get("owner_id") == call.user
             and not contents.is_google_type(f["mime_type"])]
    usage = sum(int(f.get("size") or 0) for f in owned)
    in_trash = sum(int(f.get("size") or 0) for f in owned if seen.trashed(f))
    formats = {source: [target] for target, sources in contents.IMPORTS.items() for source in sources}
    return {"kind": "drive#about", "user": user_json(seen, call.user, call.user),
            "storageQuota": {"limit": str(QUOTA), "usage": str(usage), "usageInDrive": str(usage),
                             "usageInDriveTrash": str(in_trash)},
            "importFormats": formats, "exportFormats": {k: list(v) for k, v in contents.EXPORTS.items()},
            "maxImportSizes": {k: "10485760" for k in contents.EXPORTS}, "maxUploadSize": str(MAX_UPLOAD),
            "appInstalled": False, "canCreateDrives": False, "canCreateTeamDrives": False,
            "folderColorPalette": ["#ac725e", "#d06b64", "#f83a22", "#fa573c", "#ff7537", "#ffad46"],
            "driveThemes": []}


HANDLERS = {"revisions.list": list_revisions, "revisions.get": get_revision, "revisions.update": update_revision,
            "revisions.delete": delete_revision, "changes.getStartPageToken": start_page_token,
            "changes.list": list_changes, "about.get": about}
