"""The Slack methods beyond the first six, on slack_default: success paths and Slack's error codes."""

import pytest
from fastapi.testclient import TestClient

from detour.apps.server import create_app
from mock_services.store import EnvironmentStore

AUTH = {"Authorization": "Bearer xoxb-test"}
GENERAL, RANDOM, JOHN, ROBERT = "C01ABCD1234", "C02EFGH5678", "U02JOHNDOE1", "U03ROBERT23"
AGENT_MSG, JOHN_MSG = "1699564800.000123", "1699572000.000789"


@pytest.fixture
def slack(state):
    client = TestClient(create_app(state))
    env = EnvironmentStore(state).create("slack_default").env_id

    def call(method, **params):
        return client.post(f"/api/env/{env}/services/slack/api/{method}", headers=AUTH, data=params).json()
    call.diff = lambda: EnvironmentStore(state).diff(env)
    return call


def test_update_and_delete_messages(slack):
    updated = slack("chat.update", channel=GENERAL, ts=AGENT_MSG, text="edited")
    assert updated["ok"] and updated["message"]["text"] == "edited"
    assert slack.diff().updates[0]["after"]["message_text"] == "edited"
    slack("reactions.add", channel=GENERAL, timestamp=AGENT_MSG, name="tada")
    assert slack("chat.delete", channel=GENERAL, ts=AGENT_MSG) == {"ok": True, "channel": GENERAL, "ts": AGENT_MSG}
    assert {d["__table__"] for d in slack.diff().deletes} == {"messages"}  # its reaction went with it
    # Slack's rule for any token, issued or not: only the author edits; the author or an admin
    # with a user token deletes (the acting user is a bot)
    assert slack("chat.update", channel=RANDOM, ts=JOHN_MSG, text="x")["error"] == "cant_update_message"
    assert slack("chat.delete", channel=GENERAL, ts=AGENT_MSG)["error"] == "message_not_found"
    assert slack("chat.delete", channel=RANDOM, ts=JOHN_MSG)["error"] == "cant_delete_message"
    slack("conversations.leave", channel=RANDOM)
    assert slack("chat.delete", channel=RANDOM, ts="1.1")["error"] == "not_in_channel"


def test_threads_and_replies(slack):
    reply = slack("chat.postMessage", channel=GENERAL, text="in thread", thread_ts=AGENT_MSG)
    root = slack("conversations.replies", channel=GENERAL, ts=AGENT_MSG)["messages"][0]
    assert (root["ts"], root["thread_ts"], root["reply_count"]) == (AGENT_MSG, AGENT_MSG, 1)
    thread = slack("conversations.replies", channel=GENERAL, ts=AGENT_MSG)["messages"]
    assert [m["ts"] for m in thread] == [AGENT_MSG, reply["ts"]]
    assert thread[1]["thread_ts"] == AGENT_MSG
    history = [m["ts"] for m in slack("conversations.history", channel=GENERAL)["messages"]]
    assert reply["ts"] not in history  # replies stay in their thread
    assert slack("conversations.replies", channel=GENERAL, ts="1.1")["error"] == "thread_not_found"


def test_create_rename_topic_archive(slack):
    created = slack("conversations.create", name="launch-room")["channel"]
    assert created["name"] == "launch-room" and created["is_member"] and created["id"].startswith("C")
    assert slack("conversations.create", name="launch-room")["error"] == "name_taken"
    assert slack("conversations.create", name="Bad Name")["error"] == "invalid_name_specials"
    assert slack("conversations.create", name="x" * 81)["error"] == "invalid_name_maxlength"
    assert slack("conversations.rename", channel=created["id"], name="launch")["channel"]["name"] == "launch"
    assert slack("conversations.rename", channel=GENERAL, name="x")["error"] == "not_authorized"
    assert slack("conversations.setTopic", channel="launch", topic="T-minus 3")["channel"]["topic"]["value"] == "T-minus 3"
    assert slack("conversations.archive", channel="launch") == {"ok": True}
    assert slack("conversations.archive", channel="launch")["error"] == "already_archived"
    assert slack("chat.postMessage", channel="launch", text="x")["error"] == "is_archived"
    assert slack("conversations.unarchive", channel="launch") == {"ok": True}
    assert slack("conversations.unarchive", channel="launch")["error"] == "not_archived"
    assert slack("conversations.archive", channel=GENERAL)["error"] == "cant_archive_general"


def test_membership(slack):
    room = slack("conversations.create", name="ops")["channel"]["id"]
    assert slack("conversations.invite", channel=room, users=f"{JOHN},{ROBERT}")["ok"]
    assert sorted(slack("conversations.members", channel=room)["members"]) == sorted(["U01AGENBOT9", JOHN, ROBERT])
    assert slack("conversations.invite", channel=room, users=JOHN)["error"] == "already_in_channel"
    assert slack("conversations.invite", channel=room, users="U0NOPE")["error"] == "user_not_found"
    assert slack("conversations.kick", channel=room, user=JOHN) == {"ok": True}
    assert slack("conversations.kick", channel=room, user=JOHN)["error"] == "not_in_channel"
    assert slack("conversations.kick", channel=room, user="U01AGENBOT9")["error"] == "cant_kick_self"
    assert slack("conversations.leave", channel=room) == {"ok": True}
    assert slack("conversations.leave", channel=room) == {"ok": False, "error": "not_in_channel", "not_in_channel": True}
    joined = slack("conversations.join", channel=room)
    assert joined["ok"] and "warning" not in joined
    assert slack("conversations.join", channel=room)["warning"] == "already_in_channel"
    assert slack("conversations.leave", channel=GENERAL)["error"] == "cant_leave_general"


def test_direct_messages_are_reused(slack):
    first = slack("conversations.open", users=JOHN)
    again = slack("conversations.open", users=JOHN)
    assert first["channel"]["id"].startswith("D") and again["channel"]["id"] == first["channel"]["id"]
    assert again["already_open"]
    group = slack("conversations.open", users=f"{JOHN},{ROBERT}")["channel"]["id"]
    assert group.startswith("G") and group != first["channel"]["id"]
    assert slack("chat.postMessage", channel=first["channel"]["id"], text="hi John")["ok"]
    assert slack("conversations.open", users="U0NOPE")["error"] == "user_not_found"


def test_reactions_remove_and_get(slack):
    slack("reactions.add", channel=GENERAL, timestamp=AGENT_MSG, name="eyes")
    got = slack("reactions.get", channel=GENERAL, timestamp=AGENT_MSG)
    assert got["message"]["reactions"] == [{"name": "eyes", "users": ["U01AGENBOT9"], "count": 1}]
    assert slack("reactions.remove", channel=GENERAL, timestamp=AGENT_MSG, name="eyes") == {"ok": True}
    assert slack("reactions.remove", channel=GENERAL, timestamp=AGENT_MSG, name="eyes")["error"] == "no_reaction"


def test_users_info_and_conversations(slack):
    assert slack("users.info", user=JOHN)["user"]["real_name"] == "John Doe"
    assert slack("users.info", user="U0NOPE")["error"] == "user_not_found"
    assert {c["name"] for c in slack("users.conversations")["channels"]} == {"general", "random"}
    assert slack("conversations.info", channel="random")["channel"]["id"] == RANDOM


@pytest.mark.parametrize("query, texts", [
    ("deployment", ["Does anyone know when the deployment will be done?"]),
    ("in:#random", ["Anyone up for lunch?"]),
    (f"from:<@{JOHN}>", ["Anyone up for lunch?"]),
    ("the -deployment", ["Hey team, we just shipped the new feature!"]),
    ("after:2023-11-08 before:2023-11-10", ["Anyone up for lunch?", "Does anyone know when the deployment will be done?",
                                             "Hey team, we just shipped the new feature!"]),
])
def test_search(slack, query, texts):
    found = slack("search.messages", query=query)["messages"]
    assert [m["text"] for m in found["matches"]] == texts and found["total"] == len(texts)
    files = slack("search.all", query=query)["files"]
    assert files["total"] == 0 and files["matches"] == []


def test_search_needs_a_query(slack):
    assert slack("search.messages", query=" ")["error"] == "no_query"


@pytest.mark.parametrize("query", ["after:2023-11-09", "before:2023-11-09"])
def test_search_date_bounds_exclude_the_named_day(slack, query):
    assert slack("search.messages", query=query)["messages"]["total"] == 0


def test_an_empty_string_is_a_value_and_an_absent_argument_is_missing(slack):
    slack("conversations.setTopic", channel=GENERAL, topic="For now")
    cleared = slack("conversations.setTopic", channel=GENERAL, topic="")
    assert cleared["ok"] and cleared["channel"]["topic"]["value"] == ""
    assert slack("conversations.create", name="")["error"] == "invalid_name_required"
    absent = slack("conversations.setTopic", channel=GENERAL)
    assert absent["error"] == "invalid_arguments" and "topic" in absent["response_metadata"]["messages"][0]


def test_a_seeded_channel_archives_from_false_to_true(slack):
    assert slack("conversations.archive", channel=RANDOM)["ok"]
    change = next(u for u in slack.diff().updates if u["__table__"] == "channels")
    assert (change["before"]["is_archived"], change["after"]["is_archived"]) == (False, True)


def test_dms_name_their_user_and_one_may_open_ones_own(slack):
    me = slack("auth.test")["user_id"]
    opened = slack("conversations.open", users=JOHN, return_im="true")
    assert opened["channel"]["is_im"] and opened["channel"]["user"] == JOHN
    assert slack("conversations.info", channel=opened["channel"]["id"])["channel"]["user"] == JOHN
    listed = slack("conversations.list", types="im")["channels"]
    assert {c["id"]: c["user"] for c in listed}[opened["channel"]["id"]] == JOHN
    own = slack("conversations.open", users=me)
    assert own["ok"] and slack("conversations.info", channel=own["channel"]["id"])["channel"]["user"] == me
    assert slack("conversations.open", users=me)["already_open"]


def test_a_reaction_must_be_a_known_emoji(slack):
    for name in ("thumbsup", "+1", ":tada:", "white_check_mark", "wave::skin-tone-3"):
        assert slack("reactions.add", channel=GENERAL, timestamp=AGENT_MSG, name=name)["ok"], name
    assert slack("reactions.add", channel=GENERAL, timestamp=AGENT_MSG, name="not_an_emoji_at_all")["error"] \
        == "invalid_name"


def test_messages_carry_their_team_and_metadata(slack):
    meta = '{"event_type": "task_created", "event_payload": {"id": "T-1"}}'
    posted = slack("chat.postMessage", channel=GENERAL, text="with metadata", metadata=meta)
    assert posted["message"]["metadata"] == {"event_type": "task_created", "event_payload": {"id": "T-1"}}
    assert posted["message"]["team"] == slack("auth.test")["team_id"]
    history = slack("conversations.history", channel=GENERAL, limit=1)["messages"][0]
    assert history["metadata"]["event_type"] == "task_created" and history["team"]
    assert slack("chat.postMessage", channel=GENERAL, text="x", metadata='{"event_type": 1}')["error"] \
        == "invalid_metadata_format"
