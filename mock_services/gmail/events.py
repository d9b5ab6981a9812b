"""What the Gmail replica's state changes emit: push notifications of a watched mailbox.

`users.watch` (a `topicName`, optionally `labelIds` with `labelFilterBehavior` include or
exclude) keeps a row of `gmail_watches` per mailbox; each message that then lands there with a
label the watch covers is published to the topic as Gmail publishes it: a Pub/Sub message whose
`data` is base64 of `{"emailAddress", "historyId"}` (the history id after the change, from which
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
RULES = (EventRule("gmail_messages", "insert", "messageAdded",
                   {"user": "user_id", "labels": "label_ids", "historyId": "history_id"}),)


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
