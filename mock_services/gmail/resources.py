"""Rows as Gmail v1's resources (Message in its four formats, Label with counts computed on
read, Draft, Thread), and Google's paging over a listed mailbox."""

from __future__ import annotations

import base64
import json

from mock_services.gmail import mailbox, mime
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row

FORMATS = ("minimal", "full", "raw", "metadata")


def message_json(call: Call, row: Row, form: str = "full", only: list[str] | None = None) -> dict:
    """A stored message as Gmail answers it in `form` (minimal, full, metadata or raw)."""
    answer: dict = {"id": row["id"], "threadId": row["thread_id"]}
    if row.get("label_ids"):
        answer["labelIds"] = list(row["label_ids"])
    answer |= {"snippet": row.get("snippet", ""), "sizeEstimate": int(row.get("size") or 0),
               "historyId": str(row.get("history_id") or 0), "internalDate": str(int(row.get("internal_date") or 0))}
    if form == "full":
        answer["payload"] = mime.part_json(mailbox.parsed(call, row), row["id"])
    elif form == "metadata":
        answer["payload"] = mime.metadata_json(mailbox.parsed(call, row), only)
    elif form == "raw":
        answer["raw"] = mime.encode(mailbox.content(call.state, row["content"]))
    return answer


def reference(row: Row) -> dict:
    return {"id": row["id"], "threadId": row["thread_id"]}


def label_json(call: Call, user_id: str, label: Row | str, counts: bool) -> dict:
    """A label (a system id or a user label's row); its counts are read from the mailbox."""
    if isinstance(label, str):
        answer: dict = {"id": label, "name": label, "type": "system"}
        if label not in mailbox.HIDDEN_SYSTEM:
            answer |= {"messageListVisibility": "hide" if label in ("SPAM", "TRASH", "DRAFT") else "show",
                       "labelListVisibility": "labelHide" if label in ("UNREAD", "STARRED", "IMPORTANT", "CHAT")
                       else "labelShow"}
        label_id = label
    else:
        answer = {"id": label["id"], "name": label["name"], "type": "user",
                  "messageListVisibility": label.get("message_list_visibility") or "show",
                  "labelListVisibility": label.get("label_list_visibility") or "labelShow"}
        if label.get("color"):
            answer["color"] = label["color"]
        label_id = label["id"]
    if counts:
        rows = [r for r in call.state.rows("gmail_messages", user_id=user_id) if label_id in (r.get("label_ids") or [])]
        threads = {r["thread_id"] for r in rows}
        unread = [r for r in rows if "UNREAD" in (r.get("label_ids") or [])]
        answer |= {"messagesTotal": len(rows), "messagesUnread": len(unread), "threadsTotal": len(threads),
                   "threadsUnread": len({r["thread_id"] for r in unread})}
    return answer


def draft_json(call: Call, draft: Row, form: str = "full") -> dict:
    message = call.state.first("gmail_messages", id=draft["message_id"])
    if message is None:
        return {"id": draft["id"], "message": {"id": draft["message_id"]}}
    return {"id": draft["id"], "message": message_json(call, message, form) if form else reference(message)}


def page(call: Call, items: list, default: int, most: int = 500) -> tuple[list, str | None]:
    """`maxResults` and an opaque `pageToken`; the token of the page after, while more remain."""
    size = call.arg("maxResults", default)
    if size < 1:
        raise RestError(400, "invalidArgument", "Invalid maxResults")
    size = min(size, most)
    start = 0
    if call.params.get("pageToken"):
        try:
            start = int(json.loads(base64.urlsafe_b64decode(call.params["pageToken"].encode()))["o"])
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            raise RestError(400, "invalidArgument", "Invalid pageToken") from None
    following = base64.urlsafe_b64encode(json.dumps({"o": start + size}).encode()).decode()
    return items[start:start + size], following if start + size < len(items) else None
