"""users.drafts.*: a draft is a message in the mailbox labelled DRAFT and a row naming it;
an update replaces its message (a new message id, as Gmail's), sending sends its bytes and
takes the draft away."""

from __future__ import annotations

from mock_services import clock
from mock_services.gmail import mailbox, mime, sending
from mock_services.gmail.handlers.messages import delete, form, sent_json
from mock_services.gmail.resources import draft_json, page
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row


def draft_message(call: Call) -> tuple[bytes, str | None]:
    body = call.body if isinstance(call.body, dict) else {}
    message = body.get("message")
    if not isinstance(message, dict):
        raise RestError(400, "invalidArgument", "Missing draft message")
    return mime.decode_raw(message.get("raw")), message.get("threadId") or None


def find_draft(call: Call, draft_id: str) -> Row:
    found = call.state.first("gmail_drafts", id=draft_id)
    if found is None or found["user_id"] != mailbox.owner(call)["id"]:
        raise RestError(404, "notFound", "Requested entity was not found.")
    return found


def create_draft(call: Call) -> dict:
    user = mailbox.owner(call)
    raw, thread_id = draft_message(call)
    message = mailbox.add_message(call, user["id"], raw, ["DRAFT"], thread_id)
    draft = {"id": "r" + str(int(clock.token_hex(8), 16)).rjust(20, "0")[:19], "user_id": user["id"],
             "message_id": message["id"]}
    call.state.insert("gmail_drafts", draft)
    return draft_json(call, draft, "minimal")


def replace_message(call: Call, draft: Row) -> Row:
    raw, thread_id = draft_message(call)
    old = call.state.first("gmail_messages", id=draft["message_id"])
    thread_id = thread_id or (old or {}).get("thread_id")
    if old:
        mailbox.record(call, old["user_id"], "messageDeleted", old)
        call.state.delete("gmail_messages", old)
    try:
        message = mailbox.add_message(call, draft["user_id"], raw, ["DRAFT"], thread_id)
    except RestError:  # the thread it was in went with the old message
        message = mailbox.add_message(call, draft["user_id"], raw, ["DRAFT"])
    draft = draft | {"message_id": message["id"]}
    call.state.update("gmail_drafts", draft)
    return draft


def update_draft(call: Call) -> dict:
    return draft_json(call, replace_message(call, find_draft(call, call.params["id"])), "minimal")


def send_draft(call: Call) -> dict:
    body = call.body if isinstance(call.body, dict) else {}
    if not isinstance(body.get("id"), str):
        raise RestError(400, "invalidArgument", "Missing draft id")
    draft = find_draft(call, body["id"])
    if isinstance(body.get("message"), dict) and body["message"].get("raw"):
        draft = replace_message(call, draft)
    message = call.state.first("gmail_messages", id=draft["message_id"])
    if message is None:
        raise RestError(400, "invalidArgument", "Draft has no message")
    raw = mailbox.content(call.state, message["content"])
    sending.recipients(raw)  # no recipients: Google's 400, the draft kept
    thread_id = message["thread_id"] if message["thread_id"] != message["id"] else None
    delete(call, message)
    return sent_json(sending.send(call, raw, thread_id))


def list_drafts(call: Call) -> dict:
    user = mailbox.owner(call)
    tree = mailbox.query_tree(call.params.get("q"))
    found = []
    for draft in call.state.rows("gmail_drafts", user_id=user["id"]):
        message = call.state.first("gmail_messages", id=draft["message_id"])
        if message and mailbox.matching(call, message, tree, str(user.get("email", ""))):
            found.append((int(message.get("internal_date") or 0), draft))
    rows, following = page(call, [d for _, d in sorted(found, key=lambda p: p[0], reverse=True)], 100)
    answer: dict = {"drafts": [draft_json(call, d, "") for d in rows]} if rows else {}
    if following:
        answer["nextPageToken"] = following
    return answer | {"resultSizeEstimate": len(rows)}


def get_draft(call: Call) -> dict:
    return draft_json(call, find_draft(call, call.params["id"]), form(call))


def delete_draft(call: Call) -> None:
    draft = find_draft(call, call.params["id"])
    message = call.state.first("gmail_messages", id=draft["message_id"])
    if message:
        delete(call, message)
    else:
        call.state.delete("gmail_drafts", draft)


HANDLERS = {
    "users.drafts.create": create_draft, "users.drafts.update": update_draft, "users.drafts.send": send_draft,
    "users.drafts.list": list_drafts, "users.drafts.get": get_draft, "users.drafts.delete": delete_draft,
}
