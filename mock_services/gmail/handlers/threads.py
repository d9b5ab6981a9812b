"""users.threads.*: a thread is the messages of one mailbox that share a thread id (the first
message's), found by the messages' search and changed through all of them."""

from __future__ import annotations

from mock_services.gmail import mailbox
from mock_services.gmail.handlers.messages import delete, form, listed
from mock_services.gmail.resources import message_json, page
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row


def messages_of(call: Call, thread_id: str) -> list[Row]:
    user = mailbox.owner(call)
    rows = call.state.rows("gmail_messages", user_id=user["id"], thread_id=thread_id)
    if not rows:
        raise RestError(404, "notFound", "Requested entity was not found.")
    return sorted(rows, key=lambda r: (int(r.get("internal_date") or 0), r["id"]))


def thread_json(call: Call, rows: list[Row], chosen: str = "full") -> dict:
    return {"id": rows[0]["thread_id"], "historyId": str(max(int(r.get("history_id") or 0) for r in rows)),
            "messages": [message_json(call, r, chosen, call.params.get("metadataHeaders")) for r in rows]}


def list_threads(call: Call) -> dict:
    """Threads with a message the search selects, the most recent first."""
    latest: dict[str, Row] = {}
    for row in listed(call):
        latest.setdefault(row["thread_id"], row)
    rows, following = page(call, list(latest.values()), 100)
    answer: dict = {}
    if rows:
        answer["threads"] = [{"id": r["thread_id"], "snippet": r.get("snippet", ""),
                              "historyId": str(r.get("history_id") or 0)} for r in rows]
    if following:
        answer["nextPageToken"] = following
    answer["resultSizeEstimate"] = len(latest)
    return answer


def get_thread(call: Call) -> dict:
    return thread_json(call, messages_of(call, call.params["id"]), form(call))


def relabel(call: Call, add: list[str], remove: list[str]) -> dict:
    rows = [mailbox.change_labels(call, r, add, remove) for r in messages_of(call, call.params["id"])]
    return thread_json(call, rows, "minimal")


def modify_thread(call: Call) -> dict:
    return relabel(call, *mailbox.label_changes(call, mailbox.owner(call)["id"]))


def delete_thread(call: Call) -> None:
    for row in messages_of(call, call.params["id"]):
        delete(call, row)


HANDLERS = {
    "users.threads.list": list_threads, "users.threads.get": get_thread, "users.threads.modify": modify_thread,
    "users.threads.trash": lambda call: relabel(call, ["TRASH"], []),
    "users.threads.untrash": lambda call: relabel(call, [], ["TRASH"]),
    "users.threads.delete": delete_thread,
}
