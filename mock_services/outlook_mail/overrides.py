"""Outlook mail over the pack generated from Microsoft Graph's metadata: each person's mailbox
(their messages, in folders that well-known names find: `inbox`, `sentitems`, `drafts`,
`deleteditems`, `archive`), drafts made and sent, sendMail, reply/replyAll/forward, move and
copy. A message sent to people of the environment lands in each one's Inbox as its own row (as
Exchange delivers a copy per mailbox); to anyone else it is only in the sender's Sent Items.
Folder counts are computed when read. Nothing leaves the replica."""

from __future__ import annotations

from typing import Any

from mock_services import clock
from mock_services.rest import graph
from mock_services.rest.errors import RestError
from mock_services.rest.graph import ALIASES, EXTRA_ROUTES, credentials, identify, prepare
from mock_services.rest.openapi import styles
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import Call
from mock_services.store import Row

MESSAGES, FOLDERS, USERS = "outlook_mail_messages", "outlook_mail_folders", "outlook_mail_users"
IDS = {MESSAGES: graph.exchange_id("BGAAAAAAAi", 40), FOLDERS: graph.exchange_id("AuAAAAAAAi", 24),
       USERS: {"kind": "uuid"}}
MISSING = {MESSAGES: graph.NOT_IN_STORE, FOLDERS: "The specified folder could not be found in the store.",
           USERS: graph.NO_USER}
error_body = graph.error_body_for("ErrorItemNotFound")
WELL_KNOWN = ("inbox", "sentitems", "drafts", "deleteditems", "archive", "junkemail", "outbox")
NEWEST = "receivedDateTime desc"


def folder(call: Call, user: str, key: str) -> Row:
    """A folder of the user's mailbox by id or well-known name."""
    rows = call.state.rows(FOLDERS, user_id=user)
    found = next((f for f in rows if f["id"] == key or (key.lower() in WELL_KNOWN and f.get("wellKnownName") ==
                                                          key.lower())), None)
    if found is None:
        raise RestError(404, "ErrorItemNotFound", MISSING[FOLDERS])
    return found


def message(call: Call) -> Row:
    found = call.state.first(MESSAGES, id=call.params["message_id"], user_id=call.params["user_id"])
    if found is None:
        raise RestError(404, "ErrorItemNotFound", MISSING[MESSAGES])
    return found


def _preview(body: Any) -> str:
    return str((body or {}).get("content") or "")[:255]


def _new_id(call: Call) -> str:
    return styles.new_id(IDS[MESSAGES], {r["id"] for r in call.state.rows(MESSAGES)})


def _stored(resources: Resources, call: Call, fields: dict, user: str, folder_id: str) -> Row:
    """A message row in the user's folder: the fields Graph's message has, stamped."""
    props = resources.schemas.named("microsoft.graph.message").get("properties", {})
    at = graph.now()
    row = {k: v for k, v in fields.items() if k in props}
    row |= {"id": _new_id(call), "user_id": user, "parentFolderId": folder_id, "createdDateTime": at,
            "lastModifiedDateTime": at, "bodyPreview": _preview(row.get("body")),
            "conversationId": row.get("conversationId") or f"AAQkAG{clock.token_hex(16)}",
            "hasAttachments": False, "importance": row.get("importance") or "normal"}
    call.state.insert(MESSAGES, row)
    return row


def _send(resources: Resources, call: Call, fields: dict, keep: bool = True) -> None:
    """Sent: in the sender's Sent Items (unless asked not to keep it), and in the Inbox of each
    recipient who has a mailbox here."""
    sender = graph.me(call) if call.params["user_id"] == call.user else \
        call.state.first(USERS, id=call.params["user_id"]) or {}
    at = graph.now()
    sent = {**fields, "from": graph.recipient(sender), "sender": graph.recipient(sender), "isDraft": False,
            "sentDateTime": at, "receivedDateTime": at}
    if keep:
        _stored(resources, call, {**sent, "isRead": True}, sender["id"], folder(call, sender["id"], "sentitems")["id"])
    addresses = {(r.get("emailAddress") or {}).get("address", "").lower() for field in
                 ("toRecipients", "ccRecipients", "bccRecipients") for r in fields.get(field) or []}
    for user in call.state.rows(USERS):
        if str(user.get("userPrincipalName", "")).lower() in addresses or str(user.get("mail", "")).lower() in addresses:
            _stored(resources, call, {**sent, "isRead": False, "bccRecipients": []}, user["id"],
                    folder(call, user["id"], "inbox")["id"])


def _message_of(resources: Resources, call: Call, given: Any) -> dict:
    found = given if isinstance(given, dict) else {}
    resources.schemas.check(found, {"$ref": "#/components/schemas/microsoft.graph.message"})
    return found


def send_mail(resources: Resources, call: Call) -> None:
    given = graph.body(call)
    if not isinstance(given.get("message"), dict):
        raise RestError(400, "ErrorInvalidRequest", "Required parameter 'Message' is missing.")
    _send(resources, call, _message_of(resources, call, given["message"]), given.get("saveToSentItems") is not False)


def send_draft(resources: Resources, call: Call) -> None:
    draft = message(call)
    if not draft.get("isDraft"):
        raise RestError(400, "ErrorInvalidOperation", "Only drafts can be sent.")
    call.state.delete(MESSAGES, draft)
    _send(resources, call, {k: v for k, v in draft.items() if k not in ("id", "user_id", "parentFolderId")})


def _answer(call: Call, original: Row, how: str) -> dict:
    """A reply's, reply-all's or forward's fields from the original and the call's body."""
    given = graph.body(call)
    comment = given.get("comment") or ""
    extra = given.get("message") if isinstance(given.get("message"), dict) else {}
    me = graph.me(call)
    mine = (graph.recipient(me)["emailAddress"]["address"] or "").lower()
    if how == "forward":
        to = given.get("toRecipients") or extra.get("toRecipients") or []
    else:
        to = [original.get("from")] if original.get("from") else []
        if how == "replyAll":
            to += [r for r in (original.get("toRecipients") or []) + (original.get("ccRecipients") or [])
                   if (r.get("emailAddress") or {}).get("address", "").lower() != mine]
    prefix = "FW: " if how == "forward" else "RE: "
    quoted = (original.get("body") or {}).get("content") or ""
    return {"subject": prefix + str(original.get("subject") or ""), "toRecipients": [r for r in to if r],
            "conversationId": original.get("conversationId"),
            "body": {"contentType": "text", "content": f"{comment}\n\n{quoted}".strip()},
            **{k: v for k, v in extra.items() if k not in ("toRecipients",)}}


def responding(how: str, draft: bool) -> Any:
    def handler(resources: Resources, call: Call) -> Any:
        fields = _answer(call, message(call), how)
        if not fields["toRecipients"] and not draft:
            raise RestError(400, "ErrorInvalidRecipients", "At least one recipient is not valid.")
        if draft:
            made = _stored(resources, call, {**fields, "isDraft": True, "isRead": True}, call.params["user_id"],
                           folder(call, call.params["user_id"], "drafts")["id"])
            call.status = 201
            return resources.present(call, made, {"$ref": "#/components/schemas/microsoft.graph.message"})
        _send(resources, call, fields)
        return None
    return handler


def move(resources: Resources, call: Call) -> Any:
    row = message(call)
    target = folder(call, call.params["user_id"], str(graph.body(call).get("destinationId") or ""))
    row = {**row, "parentFolderId": target["id"], "lastModifiedDateTime": graph.now()}
    call.state.update(MESSAGES, row)
    call.status = 201
    return resources.present(call, row, {"$ref": "#/components/schemas/microsoft.graph.message"})


def copy(resources: Resources, call: Call) -> Any:
    row = message(call)
    target = folder(call, call.params["user_id"], str(graph.body(call).get("destinationId") or ""))
    made = _stored(resources, call, {k: v for k, v in row.items() if k != "id"}, call.params["user_id"], target["id"])
    call.status = 201
    return resources.present(call, made, {"$ref": "#/components/schemas/microsoft.graph.message"})


def create_draft(resources: Resources, call: Call) -> Any:
    """A new message is a draft in Drafts (or the folder the path names)."""
    user = call.params["user_id"]
    where = folder(call, user, call.params.get("mailFolder_id") or "drafts")
    me = graph.me(call)
    fields = resources.body(call)
    made = _stored(resources, call, {**fields, "isDraft": True, "isRead": True, "from": graph.recipient(me),
                                     "sender": graph.recipient(me)}, user, where["id"])
    call.status = 201
    return resources.present(call, made, {"$ref": "#/components/schemas/microsoft.graph.message"})


def list_messages(resources: Resources, call: Call) -> Any:
    user = call.params["user_id"]
    rows = call.state.rows(MESSAGES, user_id=user)
    if call.params.get("mailFolder_id"):
        rows = [r for r in rows if r.get("parentFolderId") == folder(call, user, call.params["mailFolder_id"])["id"]]
    return graph.listing(resources, call, rows, NEWEST)


def counted(call: Call, row: Row) -> Row:
    """A folder with its counts, computed from its messages and child folders when read."""
    inside = call.state.rows(MESSAGES, user_id=row["user_id"], parentFolderId=row["id"])
    return {**row, "totalItemCount": len(inside), "unreadItemCount": sum(not m.get("isRead") for m in inside),
            "childFolderCount": len(call.state.rows(FOLDERS, user_id=row["user_id"], parentFolderId=row["id"]))}


def list_folders(resources: Resources, call: Call) -> Any:
    user = call.params["user_id"]
    parent = folder(call, user, call.params["mailFolder_id"])["id"] if call.params.get("mailFolder_id") else None
    rows = [counted(call, f) for f in call.state.rows(FOLDERS, user_id=user)
            if (f.get("parentFolderId") == parent if parent else f.get("wellKnownName") or not f.get("parentFolderId")
                or f.get("parentFolderId") == "root")]
    return graph.listing(resources, call, rows)


def get_folder(resources: Resources, call: Call) -> Any:
    return resources.present(call, counted(call, folder(call, call.params["user_id"], call.params["mailFolder_id"])),
                             resources.response(call.operation.short_id)[1])


def create_folder(resources: Resources, call: Call) -> Any:
    user = call.params["user_id"]
    parent = folder(call, user, call.params["mailFolder_id"])["id"] if call.params.get("mailFolder_id") else "root"
    fields = resources.body(call)
    if any(f.get("displayName") == fields.get("displayName") and f.get("parentFolderId") == parent
           for f in call.state.rows(FOLDERS, user_id=user)):
        raise RestError(409, "ErrorFolderExists", "A folder with the specified name already exists.",
                        details={"code": "ErrorFolderExists"})
    row = {"id": styles.new_id(IDS[FOLDERS], {r["id"] for r in call.state.rows(FOLDERS)}), "user_id": user,
           "displayName": fields.get("displayName"), "parentFolderId": parent, "isHidden": bool(fields.get("isHidden"))}
    call.state.insert(FOLDERS, row)
    call.status = 201
    return resources.present(call, counted(call, row), resources.response(call.operation.short_id)[1])


HANDLERS = {"user_sendMail": send_mail, "user.message_send": send_draft,
            "user.message_reply": responding("reply", False), "user.message_replyAll": responding("replyAll", False),
            "user.message_forward": responding("forward", False),
            "user.message_createReply": responding("reply", True),
            "user.message_createForward": responding("forward", True),
            "user.message_move": move, "user.message_copy": copy,
            "user_CreateMessage": create_draft, "user.mailFolder_CreateMessage": create_draft,
            "user_ListMessage": list_messages, "user.mailFolder_ListMessage": list_messages,
            "user_ListMailFolder": list_folders, "user.mailFolder_ListChildFolder": list_folders,
            "user_GetMailFolder": get_folder, "user_CreateMailFolder": create_folder,
            "user.mailFolder_CreateChildFolder": create_folder}

__all__ = ["ALIASES", "EXTRA_ROUTES", "HANDLERS", "IDS", "MISSING", "credentials", "error_body", "identify",
           "prepare"]
