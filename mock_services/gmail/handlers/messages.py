"""users.messages.*: list with Gmail's search, get in four formats, send, insert and import,
label changes, trash and delete, and attachments.get."""

from __future__ import annotations

from email.utils import parsedate_to_datetime

from mock_services.gmail import mailbox, mime, sending
from mock_services.gmail.search import mentions_labels
from mock_services.gmail.resources import FORMATS, message_json, page, reference
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row

HIDDEN = {"SPAM", "TRASH"}
MOST_IDS = 1000


def listed(call: Call) -> list[Row]:
    """The mailbox's messages that `labelIds` and `q` select, newest first; spam and trash only
    where asked for (`includeSpamTrash`, or a query that names them)."""
    user = mailbox.owner(call)
    tree = mailbox.query_tree(call.params.get("q"))
    wanted = mailbox.check_labels(call, user["id"], call.params.get("labelIds") or [])
    hide = set() if call.arg("includeSpamTrash", False) or mentions_labels(tree, HIDDEN) else HIDDEN
    hide -= set(wanted)
    found = []
    for row in call.state.rows("gmail_messages", user_id=user["id"]):
        labels = set(row.get("label_ids") or [])
        if labels & hide or not set(wanted) <= labels:
            continue
        if mailbox.matching(call, row, tree, str(user.get("email", ""))):
            found.append(row)
    return sorted(found, key=lambda r: (int(r.get("internal_date") or 0), r["id"]), reverse=True)


def list_messages(call: Call) -> dict:
    found = listed(call)
    rows, following = page(call, found, 100)
    answer: dict = {"messages": [reference(r) for r in rows]} if rows else {}
    if following:
        answer["nextPageToken"] = following
    answer["resultSizeEstimate"] = len(found)
    return answer


def form(call: Call) -> str:
    chosen = call.arg("format", "full")
    if chosen not in FORMATS:
        raise RestError(400, "invalidArgument", f"Invalid format: {chosen}")
    return chosen


def get_message(call: Call) -> dict:
    return message_json(call, mailbox.find(call, call.params["id"]), form(call), call.params.get("metadataHeaders"))


def body_raw(call: Call) -> tuple[bytes, str | None, list[str] | None]:
    """A Message body's `raw` bytes, `threadId` and `labelIds`."""
    body = call.body if isinstance(call.body, dict) else {}
    return mime.decode_raw(body.get("raw")), body.get("threadId") or None, body.get("labelIds")


def send_message(call: Call) -> dict:
    raw, thread_id, _ = body_raw(call)
    return sent_json(sending.send(call, raw, thread_id))


def sent_json(row: Row) -> dict:
    """What send answers: the message's id, thread and labels."""
    answer = {"id": row["id"], "threadId": row["thread_id"]}
    return answer | {"labelIds": list(row["label_ids"])} if row.get("label_ids") else answer


def insert_message(call: Call) -> dict:
    """insert and import: a message straight into the mailbox, with the labels asked for."""
    user = mailbox.owner(call)
    raw, thread_id, labels = body_raw(call)
    labels = mailbox.check_labels(call, user["id"], labels)
    internal = None
    if call.arg("internalDateSource", call.operation.parameters["internalDateSource"].default) == "dateHeader":
        try:
            internal = int(parsedate_to_datetime(mime.header(mime.parse(raw), "Date")).timestamp() * 1000)
        except (TypeError, ValueError):
            internal = None
    row = mailbox.add_message(call, user["id"], raw, labels, thread_id, internal)
    return sent_json(row)


def modify_message(call: Call) -> dict:
    row = mailbox.find(call, call.params["id"])
    add, remove = mailbox.label_changes(call, row["user_id"])
    return message_json(call, mailbox.change_labels(call, row, add, remove), "minimal")


def batch_ids(call: Call) -> list[str]:
    body = call.body if isinstance(call.body, dict) else {}
    ids = body.get("ids")
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise RestError(400, "invalidArgument", "ids must be a list of message ids")
    if len(ids) > MOST_IDS:
        raise RestError(400, "invalidArgument", f"Too many ids (at most {MOST_IDS})")
    return ids


def batch_modify(call: Call) -> None:
    ids = batch_ids(call)
    add, remove = mailbox.label_changes(call, mailbox.owner(call)["id"])
    for message_id in ids:
        mailbox.change_labels(call, mailbox.find(call, message_id), add, remove)


def trash_message(call: Call) -> dict:
    return message_json(call, mailbox.change_labels(call, mailbox.find(call, call.params["id"]), ["TRASH"], []),
                        "minimal")


def untrash_message(call: Call) -> dict:
    return message_json(call, mailbox.change_labels(call, mailbox.find(call, call.params["id"]), [], ["TRASH"]),
                        "minimal")


def delete(call: Call, row: Row) -> None:
    """Gone for good (Gmail's delete skips the trash); a draft of it goes with it."""
    mailbox.record(call, row["user_id"], "messageDeleted", row)
    call.state.delete("gmail_messages", row)
    for draft in call.state.rows("gmail_drafts", message_id=row["id"]):
        call.state.delete("gmail_drafts", draft)


def delete_message(call: Call) -> None:
    delete(call, mailbox.find(call, call.params["id"]))


def batch_delete(call: Call) -> None:
    for message_id in batch_ids(call):
        delete(call, mailbox.find(call, message_id))


def get_attachment(call: Call) -> dict:
    row = mailbox.find(call, call.params["messageId"])
    found = mime.find_attachment(mailbox.parsed(call, row), row["id"], call.params["id"])
    if found is None:
        raise RestError(400, "invalidArgument", "Invalid attachment token")
    return {"attachmentId": call.params["id"], "size": len(found.data), "data": mime.encode(found.data)}


HANDLERS = {
    "users.messages.list": list_messages, "users.messages.get": get_message, "users.messages.send": send_message,
    "users.messages.insert": insert_message, "users.messages.import": insert_message,
    "users.messages.modify": modify_message, "users.messages.batchModify": batch_modify,
    "users.messages.trash": trash_message, "users.messages.untrash": untrash_message,
    "users.messages.delete": delete_message, "users.messages.batchDelete": batch_delete,
    "users.messages.attachments.get": get_attachment,
}
