"""The Pub/Sub pack's rules and Gmail's watch into it, in process on a frozen clock: a pulled
message is leased until its ack deadline and comes again after it with a new ackId (the old one
then acknowledges nothing); Google's errors for a missing topic and a taken name; a watch covers
the labels it names (include or exclude) and ends with users.stop."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime

import pytest
from fastapi.testclient import TestClient

from detour.apps.server import create_app
from detour_core.paths import StatePaths
from mock_services.clock import Clock, moved
from mock_services.store import EnvironmentStore
from mock_services.timelines.model import Step
from mock_services.timelines.run import act, set_clock

FROZEN = Clock().set(datetime(2026, 3, 2, 9, 30, tzinfo=UTC).timestamp())
TOPIC, SUB = "projects/acme/topics/mail", "projects/acme/subscriptions/mail-sub"


@pytest.fixture
def world(tmp_path):
    state = StatePaths(tmp_path).ensure()
    client = TestClient(create_app(state, api_auth=False), raise_server_exceptions=False)
    store = EnvironmentStore(state)
    env_id = store.create(["gmail_default", "pubsub_default"], clock=FROZEN).env_id
    root = f"/api/env/{env_id}/services"
    assert client.put(f"{root}/pubsub/v1/{TOPIC}", json={}).status_code == 200
    assert client.put(f"{root}/pubsub/v1/{SUB}", json={"topic": TOPIC}).json()["ackDeadlineSeconds"] == 10
    return client, store, env_id, root


def pull(client, root) -> list[dict]:
    return client.post(f"{root}/pubsub/v1/{SUB}:pull", json={"maxMessages": 5}).json().get("receivedMessages", [])


def test_a_message_unacknowledged_past_its_deadline_comes_again(world):
    client, store, env_id, root = world
    published = client.post(f"{root}/pubsub/v1/{TOPIC}:publish", json={"messages": [{"data": "aGk="}]}).json()
    [first] = pull(client, root)
    assert first["message"]["messageId"] == published["messageIds"][0] and first["message"]["data"] == "aGk="
    assert pull(client, root) == []                      # leased: not given twice
    set_clock(store, env_id, moved(store.get(env_id).clock, advance_s=11))
    [again] = pull(client, root)
    assert again["message"] == first["message"] and again["ackId"] != first["ackId"]
    acked = f"{root}/pubsub/v1/{SUB}:acknowledge"
    assert client.post(acked, json={"ackIds": [first["ackId"]]}).json() == {}   # an old lease's: nothing
    set_clock(store, env_id, moved(store.get(env_id).clock, advance_s=11))
    [third] = pull(client, root)
    client.post(acked, json={"ackIds": [third["ackId"]]})
    set_clock(store, env_id, moved(store.get(env_id).clock, advance_s=60))
    assert pull(client, root) == []


def test_google_errors_for_a_missing_topic_and_a_taken_name(world):
    client, _, _, root = world
    missing = client.put(f"{root}/pubsub/v1/projects/acme/subscriptions/other", json={"topic": "projects/acme/topics/no"})
    assert missing.status_code == 404 and missing.json()["error"]["status"] == "NOT_FOUND"
    taken = client.put(f"{root}/pubsub/v1/{TOPIC}", json={})
    assert taken.status_code == 409 and taken.json()["error"]["status"] == "ALREADY_EXISTS"
    no_topic = client.post(f"{root}/gmail/gmail/v1/users/me/watch", json={"topicName": "projects/acme/topics/no"})
    assert no_topic.status_code == 404


def mail_from_john(store, env_id, subject: str) -> None:
    raw = base64.urlsafe_b64encode(f"To: agent@example.com\r\nSubject: {subject}\r\n\r\nHi".encode()).decode()
    answer = act(store, env_id, Step(person="user_john", service="gmail", at=0,
                                     do="POST /gmail/v1/users/me/messages/send", args={"raw": raw}), {}, {})
    assert answer["ok"], answer


@pytest.mark.parametrize(("behaviour", "heard"), [("include", True), ("exclude", False)])
def test_a_watch_publishes_what_its_labels_cover_until_it_is_stopped(world, behaviour, heard):
    client, store, env_id, root = world
    watched = client.post(f"{root}/gmail/gmail/v1/users/me/watch",
                          json={"topicName": TOPIC, "labelIds": ["INBOX"], "labelFilterBehavior": behaviour}).json()
    mail_from_john(store, env_id, "Deploy failed")
    received = pull(client, root)
    notes = [json.loads(base64.b64decode(r["message"]["data"])) for r in received]
    assert notes == ([{"emailAddress": "agent@example.com", "historyId": notes[0]["historyId"]}] if heard else [])
    assert not heard or int(notes[0]["historyId"]) > int(watched["historyId"])
    if received:
        client.post(f"{root}/pubsub/v1/{SUB}:acknowledge", json={"ackIds": [r["ackId"] for r in received]})
    assert client.post(f"{root}/gmail/gmail/v1/users/me/stop").status_code == 204
    mail_from_john(store, env_id, "Still failing")
    set_clock(store, env_id, moved(store.get(env_id).clock, advance_s=60))
    assert pull(client, root) == []


def test_a_label_change_is_a_notification_too(world):
    """Any change of the mailbox's history the watch covers: the agent stars a message."""
    client, _, _, root = world
    gmail = f"{root}/gmail/gmail/v1/users/me"
    client.post(f"{gmail}/watch", json={"topicName": TOPIC})
    message = client.get(f"{gmail}/messages", params={"labelIds": "INBOX"}).json()["messages"][0]
    assert client.post(f"{gmail}/messages/{message['id']}/modify", json={"addLabelIds": ["STARRED"]}).status_code == 200
    [note] = [json.loads(base64.b64decode(r["message"]["data"]))["historyId"] for r in pull(client, root)]
    assert note == client.get(f"{gmail}/profile").json()["historyId"]
