"""users.getProfile, users.watch and users.stop, and users.history.list: what changed in a
mailbox since a history id, from the entries every change records."""

from __future__ import annotations

import re

from mock_services import clock
from mock_services.gmail import events, mailbox
from mock_services.gmail.resources import page
from mock_services.rest.errors import RestError
from mock_services.pubsub.overrides import topic_row
from mock_services.rest.router import Call

WATCH_DAYS = 7
TOPIC = re.compile(r"projects/[^/]+/topics/[^/]+")
KINDS = {"messageAdded": "messagesAdded", "messageDeleted": "messagesDeleted", "labelAdded": "labelsAdded",
         "labelRemoved": "labelsRemoved"}


def get_profile(call: Call) -> dict:
    user = mailbox.owner(call)
    rows = call.state.rows("gmail_messages", user_id=user["id"])
    return {"emailAddress": user.get("email", ""), "messagesTotal": len(rows),
            "threadsTotal": len({r["thread_id"] for r in rows}),
            "historyId": str(mailbox.current_history_id(call.state))}


def watch(call: Call) -> dict:
    """The mailbox's one watch (a new one replaces it), published to by events.py."""
    user = mailbox.owner(call)
    body = call.body if isinstance(call.body, dict) else {}
    topic = str(body.get("topicName") or "")
    if not TOPIC.fullmatch(topic):
        raise RestError(400, "invalidArgument", f"Invalid topicName does not match projects/*/topics/*: {topic}")
    if "pubsub" in call.state.info.held() and topic_row(call.state.scoped("pubsub"), topic) is None:
        raise RestError(404, "notFound", f"Resource not found (resource={topic.rpartition('/')[2]}).")
    row = {"id": user["id"], "user_id": user["id"], "topic_name": topic, "label_ids": list(body.get("labelIds") or []),
           "label_filter_behavior": body.get("labelFilterBehavior") or body.get("labelFilterAction") or "include",
           "history_id": mailbox.current_history_id(call.state),
           "expiration": int((clock.now() + WATCH_DAYS * 86400) * 1000)}
    if call.state.first(events.WATCHES, id=user["id"]):
        call.state.update(events.WATCHES, row)
    else:
        call.state.insert(events.WATCHES, row)
    return {"historyId": str(row["history_id"]), "expiration": str(row["expiration"])}


def stop(call: Call) -> None:
    user = mailbox.owner(call)
    if found := call.state.first(events.WATCHES, id=user["id"]):
        call.state.delete(events.WATCHES, found)


def list_history(call: Call) -> dict:
    user = mailbox.owner(call)
    start = call.params.get("startHistoryId")
    if not start or not str(start).isdigit():
        raise RestError(400, "invalidArgument", "Missing or invalid startHistoryId")
    kinds = set(call.params.get("historyTypes") or KINDS)
    label = call.params.get("labelId")
    entries = []
    for row in call.state.rows("gmail_history", user_id=user["id"]):
        if int(row["id"]) <= int(start) or row["type"] not in kinds:
            continue
        message = call.state.first("gmail_messages", id=row["message_id"])
        labels = (message or {}).get("label_ids") or row.get("label_ids") or []
        if label and label not in labels:
            continue
        reference = {"id": row["message_id"], "threadId": row["thread_id"]}
        entry: dict = {"id": str(row["id"]), "messages": [reference]}
        change: dict = {"message": reference | ({"labelIds": list(labels)} if labels else {})}
        if row["type"] in ("labelAdded", "labelRemoved"):
            change["labelIds"] = list(row.get("label_ids") or [])
        entry[KINDS[row["type"]]] = [change]
        entries.append(entry)
    rows, following = page(call, sorted(entries, key=lambda e: int(e["id"])), 100)
    answer: dict = {"history": rows} if rows else {}
    if following:
        answer["nextPageToken"] = following
    return answer | {"historyId": str(mailbox.current_history_id(call.state))}


HANDLERS = {"users.getProfile": get_profile, "users.watch": watch, "users.stop": stop,
            "users.history.list": list_history}
