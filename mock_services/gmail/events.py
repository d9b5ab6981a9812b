"""What the Gmail replica's state changes emit: push notifications of a watched mailbox.

`users.watch` (a `topicName`, optionally `labelIds` with `labelFilterBehavior` include or
exclude) keeps a row of `gmail_watches` per mailbox; each change of the mailbox's history that
then touches a label the watch covers (a message added or deleted, labels added or removed) is
published to the topic as Gmail publishes it: a Pub/Sub message whose
`data` is base64 of `{"emailAddress", "historyId"}` (the change's history id, after which
`users.history.list` answers). Publishing adds rows to the environment's Pub/Sub replica (one
per subscription of the topic, mock_services/pubsub/overrides.py), which the agent pulls; no
HTTP is sent. `users.stop` or the watch's expiration (7 days on the environment's clock) ends it.
"""

from __future__ import annotations

import base64
import json

from mock_services import clock
from mock_services.events.rules import EventRule, Events, Row
from mock_services.pubsub.overrides import publish
from mock_services.store import EnvState

WATCHES = "gmail_watches"


def labels_of(state: EnvState, entry: Row) -> list[str]:
    """The labels a history entry touches: its message's (stored before or after the entry is
    written) and those the entry names (a message's labels when added, the ids added or removed)."""
    message = state.first("gmail_messages", id=entry["message_id"]) or {}
    return sorted({*(message.get("label_ids") or ()), *(entry.get("label_ids") or ())})


# Every change Gmail keeps in the mailbox's history (a message added or deleted, labels added
# or removed) is a notification, numbered by its history entry.
RULES = (EventRule("gmail_history", "insert", "history", {"user": "user_id", "labels": labels_of, "historyId": "id"}),)


def covers(watch: Row, labels: list[str]) -> bool:
    """Whether a message with `labels` is one the watch reports (no labelIds: every one)."""
    named = set(watch.get("label_ids") or ())
    if not named:
        return True
    if (watch.get("label_filter_behavior") or "include").lower() == "exclude":
        return not named & set(labels)
    return bool(named & set(labels))


def deliver(state: EnvState, rule: EventRule, event: Row) -> None:
    """To the topic of the mailbox's live watch, where the environment holds Pub/Sub."""
    watch = state.first(WATCHES, user_id=event["user"])
    if watch is None or watch["expiration"] <= clock.now() * 1000 or not covers(watch, event.get("labels") or []):
        return
    if "pubsub" not in state.info.held():
        return
    owner = state.first("gmail_users", id=event["user"]) or {}
    data = json.dumps({"emailAddress": owner.get("email", ""), "historyId": str(event["historyId"])})
    publish(state.scoped("pubsub"), watch["topic_name"], base64.b64encode(data.encode()).decode())


def listening(state: EnvState) -> bool:
    return state.first(WATCHES) is not None


EVENTS = Events(rules=RULES, deliver=deliver, listening=listening)
