"""The state-backed Slack families beyond AgentDiff's 27 methods, on slack_default, with Slack's error codes."""

import time
from urllib.parse import urlparse

import pytest
from fastapi.testclient import TestClient

from detour_core.credentials import api_key
from detour.apps.server import create_app
from mock_services.request_budget import RequestBudget
from mock_services.store import EnvironmentStore

GENERAL, RANDOM, JOHN, ROBERT, AGENT = "C01ABCD1234", "C02EFGH5678", "U02JOHNDOE1", "U03ROBERT23", "U01AGENBOT9"
AGENT_MSG, ROBERT_MSG = "1699564800.000123", "1699568400.000456"


@pytest.fixture
def slack(state):
    client = TestClient(create_app(state), raise_server_exceptions=False)
    store = EnvironmentStore(state)
    env = store.create("slack_default").env_id
    base = f"/api/env/{env}/services/slack"

    def call(method, token="xoxb-test", **params):
        response = client.post(f"{base}/api/{method}", headers={"Authorization": f"Bearer {token}"}, data=params)
        assert response.status_code == 200, response.text
        return response.json()
    call.client, call.base, call.env, call.store = client, base, env, store
    call.inserted = lambda table: [r for r in store.diff(env).inserts if r["__table__"] == table]
    return call


def test_chat_extras(slack):
    link = slack("chat.getPermalink", channel=GENERAL, message_ts=AGENT_MSG)
    assert link["permalink"] == f"https://test-workspace.slack.com/archives/{GENERAL}/p1699564800000123"
    assert slack("chat.getPermalink", channel=GENERAL, message_ts="1.2")["error"] == "message_not_found"
    eph = slack("chat.postEphemeral", channel=GENERAL, user=JOHN, text="only John")
    assert eph["ok"] and "message_ts" in eph and slack.inserted("messages") == []  # never stored
    solo = slack("conversations.create", name="solo")["channel"]["id"]
    assert slack("chat.postEphemeral", channel=solo, user=ROBERT, text="x")["error"] == "user_not_in_channel"
    me = slack("chat.meMessage", channel=GENERAL, text="waves")
    history = slack("conversations.history", channel=GENERAL, limit=1)["messages"]
    assert history[0]["ts"] == me["ts"] and history[0]["subtype"] == "me_message"
    assert slack("chat.unfurl", channel=GENERAL, ts=AGENT_MSG, unfurls='{"https://x": {"text": "y"}}')["ok"]


def test_scheduled_messages_are_listed_deleted_and_posted_when_due(slack):
    later = int(time.time()) + 3600
    scheduled = slack("chat.scheduleMessage", channel=GENERAL, post_at=later, text="later")
    listed = slack("chat.scheduledMessages.list")["scheduled_messages"]
    assert [(m["id"], m["post_at"], m["text"]) for m in listed] == [(scheduled["scheduled_message_id"], later, "later")]
    assert slack("chat.scheduleMessage", channel=GENERAL, post_at=1, text="x")["error"] == "time_in_past"
    assert slack("chat.deleteScheduledMessage", channel=GENERAL,
                 scheduled_message_id=scheduled["scheduled_message_id"]) == {"ok": True}
    assert slack("chat.scheduledMessages.list")["scheduled_messages"] == []
    again = slack("chat.scheduleMessage", channel=GENERAL, post_at=later, text="due now")
    with slack.store.open(slack.env, write=True) as state:  # the clock moves on past post_at
        row = state.first("scheduled_messages", scheduled_message_id=again["scheduled_message_id"])
        state.update("scheduled_messages", {**row, "post_at": int(time.time()) - 1})
    assert slack("conversations.history", channel=GENERAL, limit=1)["messages"][0]["text"] == "due now"
    assert slack("chat.scheduledMessages.list")["scheduled_messages"] == []


def test_conversation_extras(slack):
    assert slack("conversations.mark", channel=GENERAL, ts=ROBERT_MSG) == {"ok": True}
    assert slack("conversations.info", channel=GENERAL)["channel"]["last_read"] == ROBERT_MSG
    assert "num_members" not in slack("conversations.info", channel=GENERAL)["channel"]
    assert slack("conversations.info", channel=GENERAL, include_num_members="true")["channel"]["num_members"] == 3
    purpose = slack("conversations.setPurpose", channel=RANDOM, purpose="lunch plans")
    assert purpose["purpose"] == "lunch plans" and purpose["channel"]["purpose"]["value"] == "lunch plans"
    assert slack("conversations.close", channel=GENERAL)["error"] == "method_not_supported_for_channel_type"
    dm = slack("conversations.open", users=JOHN)["channel"]["id"]
    assert slack("conversations.close", channel=dm) == {"ok": True}


def test_users_profile_presence_and_identity(slack):
    assert slack("users.lookupByEmail", email="JOHN@example.com")["user"]["id"] == JOHN
    assert slack("users.lookupByEmail", email="nobody@example.com")["error"] == "users_not_found"
    profile = slack("users.profile.set", profile='{"status_text": "in a meeting", "status_emoji": ":calendar:"}')
    assert profile["profile"]["status_text"] == "in a meeting"
    assert slack("users.profile.get")["profile"]["status_emoji"] == ":calendar:"
    assert slack("users.profile.set", name="title", value="Bot")["profile"]["title"] == "Bot"
    assert slack("users.profile.set", profile='{"nope": 1}')["error"] == "invalid_profile"
    assert slack("users.profile.set", user=JOHN, profile='{"title": "x"}')["error"] == "not_admin"
    assert slack("users.getPresence")["presence"] == "active"
    assert slack("users.setPresence", presence="away") == {"ok": True}
    assert slack("users.getPresence")["presence"] == "away"
    assert slack("users.setPresence", presence="busy")["error"] == "invalid_presence"
    assert slack("users.identity")["user"]["id"] == AGENT
    assert slack("users.info", user=AGENT)["user"]["profile"]["status_text"] == "in a meeting"


def test_pins(slack):
    assert slack("pins.add", channel=GENERAL, timestamp=AGENT_MSG) == {"ok": True}
    assert slack("pins.add", channel=GENERAL, timestamp=AGENT_MSG)["error"] == "already_pinned"
    items = slack("pins.list", channel=GENERAL)["items"]
    assert [(i["type"], i["message"]["ts"], i["created_by"]) for i in items] == [("message", AGENT_MSG, AGENT)]
    assert items[0]["message"]["pinned_to"] == [GENERAL]
    assert slack("pins.remove", channel=GENERAL, timestamp=AGENT_MSG) == {"ok": True}
    assert slack("pins.remove", channel=GENERAL, timestamp=AGENT_MSG)["error"] == "no_pin"
    assert slack("pins.add", channel=GENERAL, timestamp="1.1")["error"] == "message_not_found"
    assert slack("pins.list", channel="C0NOPE")["error"] == "channel_not_found"


def test_bookmarks(slack):
    added = slack("bookmarks.add", channel_id=GENERAL, title="Runbook", type="link", link="https://example.com/rb")
    bookmark = added["bookmark"]
    assert bookmark["title"] == "Runbook" and bookmark["id"].startswith("Bk")
    edited = slack("bookmarks.edit", channel_id=GENERAL, bookmark_id=bookmark["id"], title="Runbook v2")
    assert edited["bookmark"]["title"] == "Runbook v2"
    assert [b["title"] for b in slack("bookmarks.list", channel_id=GENERAL)["bookmarks"]] == ["Runbook v2"]
    assert slack("bookmarks.add", channel_id=GENERAL, title="x", type="link", link="notaurl")["error"] == "invalid_link"
    assert slack("bookmarks.remove", channel_id=GENERAL, bookmark_id=bookmark["id"]) == {"ok": True}
    assert slack("bookmarks.remove", channel_id=GENERAL, bookmark_id=bookmark["id"])["error"] == "not_found"


def test_reactions_list_and_stars(slack):
    slack("reactions.add", channel=GENERAL, timestamp=ROBERT_MSG, name="eyes")
    items = slack("reactions.list")["items"]
    assert [(i["channel"], i["message"]["ts"]) for i in items] == [(GENERAL, ROBERT_MSG)]
    assert slack("stars.add", channel=GENERAL, timestamp=AGENT_MSG) == {"ok": True}
    assert slack("stars.add", channel=GENERAL, timestamp=AGENT_MSG)["error"] == "already_starred"
    assert slack("stars.add", channel=RANDOM) == {"ok": True}
    starred = slack("stars.list")
    assert sorted(i["type"] for i in starred["items"]) == ["channel", "message"] and starred["paging"]["total"] == 2
    assert slack("stars.remove", channel=RANDOM) == {"ok": True}
    assert slack("stars.remove", channel=RANDOM)["error"] == "not_starred"


def test_reminders(slack):
    added = slack("reminders.add", text="stand-up", time="in 15 minutes")["reminder"]
    assert added["creator"] == AGENT and added["time"] >= time.time() + 14 * 60
    assert slack("reminders.add", text="x", time="whenever")["error"] == "cannot_parse"
    assert slack("reminders.info", reminder=added["id"])["reminder"]["text"] == "stand-up"
    assert slack("reminders.complete", reminder=added["id"]) == {"ok": True}
    assert slack("reminders.list")["reminders"][0]["complete_ts"] > 0
    assert slack("reminders.delete", reminder=added["id"]) == {"ok": True}
    assert slack("reminders.info", reminder=added["id"])["error"] == "not_found"


def test_dnd(slack):
    assert slack("dnd.info")["snooze_enabled"] is False
    assert slack("dnd.endSnooze")["error"] == "snooze_not_active"
    snoozed = slack("dnd.setSnooze", num_minutes=30)
    assert snoozed["snooze_enabled"] and 29 * 60 <= snoozed["snooze_remaining"] <= 30 * 60
    assert slack("dnd.info")["snooze_enabled"] is True
    assert slack("dnd.endSnooze")["snooze_enabled"] is False
    assert set(slack("dnd.teamInfo", users=f"{JOHN},{ROBERT}")["users"]) == {JOHN, ROBERT}


def test_usergroups(slack):
    group = slack("usergroups.create", name="On call", handle="oncall", channels=GENERAL)["usergroup"]
    assert group["handle"] == "oncall" and group["prefs"]["channels"] == [GENERAL]
    assert slack("usergroups.create", name="On call")["error"] == "name_already_exists"
    updated = slack("usergroups.users.update", usergroup=group["id"], users=f"{JOHN},{ROBERT}")["usergroup"]
    assert updated["users"] == [JOHN, ROBERT]
    assert slack("usergroups.users.list", usergroup=group["id"])["users"] == [JOHN, ROBERT]
    assert slack("usergroups.update", usergroup=group["id"], description="pager")["usergroup"]["description"] == "pager"
    listed = slack("usergroups.list", include_users="true", include_count="true")["usergroups"]
    assert [(g["id"], g["user_count"]) for g in listed] == [(group["id"], 2)]
    assert slack("usergroups.disable", usergroup=group["id"])["usergroup"]["date_delete"] > 0
    assert slack("usergroups.list")["usergroups"] == []
    assert slack("usergroups.enable", usergroup=group["id"])["ok"]
    assert slack("usergroups.users.list", usergroup="S0NOPE")["error"] == "no_such_subteam"
    assert {r["user_id"] for r in slack.inserted("user_group_members")} == {JOHN, ROBERT}


def test_workspace_methods(slack):
    assert slack("team.info")["team"] == {**slack("team.info")["team"], "id": "T01WORKSPACE", "name": "Test Workspace"}
    assert slack("emoji.list")["emoji"] == {}
    assert slack("bots.info", bot="B0NOPE")["error"] == "bot_not_found"
    assert set(slack("team.billableInfo")["billable_info"]) == {AGENT, JOHN, ROBERT}
    assert slack("auth.teams.list")["teams"] == [{"id": "T01WORKSPACE", "name": "Test Workspace"}]
    assert slack("migration.exchange", users=f"{JOHN},UNOPE")["invalid_user_ids"] == ["UNOPE"]


def upload(slack, name: str, content: bytes) -> str:
    """files_upload_v2's first two steps: an upload URL, then the bytes POSTed to it."""
    url = slack("files.getUploadURLExternal", filename=name, length=len(content))
    path = urlparse(url["upload_url"])
    assert path.netloc == "files.slack.com"
    response = slack.client.post(f"{slack.base}{path.path}", content=content,
                                 headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert response.status_code == 200 and response.text == f"OK - {len(content)}"
    return url["file_id"]


def test_file_upload_flow_list_info_download_and_delete(slack):
    file_id = upload(slack, "notes.txt", b"quarterly numbers")
    assert slack("files.info", file=file_id)["error"] == "file_not_found"  # not completed yet
    done = slack("files.completeUploadExternal", files=f'[{{"id": "{file_id}", "title": "Q3 notes"}}]',
                 channel_id=GENERAL, initial_comment="here you go")
    assert [f["title"] for f in done["files"]] == ["Q3 notes"] and done["files"][0]["channels"] == [GENERAL]
    shared = slack("conversations.history", channel=GENERAL, limit=1)["messages"][0]
    assert shared["subtype"] == "file_share" and shared["text"] == "here you go" and shared["files"][0]["id"] == file_id
    info = slack("files.info", file=file_id)
    assert info["content"] == "quarterly numbers" and info["file"]["size"] == 17
    assert [f["id"] for f in slack("files.list", channel=GENERAL)["files"]] == [file_id]
    assert slack("search.files", query="Q3")["files"]["total"] == 1
    download = urlparse(info["file"]["url_private"])
    assert download.netloc == "files.slack.com"
    got = slack.client.get(f"{slack.base}{download.path}", headers={"Authorization": "Bearer xoxb-test"})
    assert got.status_code == 200 and got.content == b"quarterly numbers"
    assert slack.client.get(f"{slack.base}{download.path}").status_code == 401
    assert slack("files.completeUploadExternal", files=f'[{{"id": "{file_id}"}}]')["error"] == "file_not_found"
    assert slack("files.delete", file=file_id) == {"ok": True}
    assert slack("files.list")["files"] == []
    assert slack.client.post(f"{slack.base}/upload/v1/F0NOPE", content=b"x").status_code == 404


def test_completing_before_the_bytes_arrive_is_refused(slack):
    url = slack("files.getUploadURLExternal", filename="a.bin", length=3)
    done = slack("files.completeUploadExternal", files=f'[{{"id": "{url["file_id"]}"}}]')
    assert done["error"] == "file_upload_not_complete"


def test_tokens_request_forms_and_revocation(slack):
    get = slack.client.get(f"{slack.base}/api/users.info", params={"user": JOHN, "token": "xoxb-q"})
    assert get.json()["user"]["id"] == JOHN
    as_json = slack.client.post(f"{slack.base}/api/chat.postMessage", json={"channel": GENERAL, "text": "json"},
                                headers={"Authorization": "Bearer xoxb-j"})
    assert as_json.json()["message"]["text"] == "json"
    not_object = slack.client.post(f"{slack.base}/api/auth.test", content=b"[1]",
                                   headers={"Authorization": "Bearer x", "Content-Type": "application/json"})
    assert not_object.json()["error"] == "json_not_object"
    assert slack("auth.test", token=" ")["error"] == "not_authed"
    assert slack("auth.revoke", token="xoxp-old", test="true") == {"ok": True, "revoked": False}
    assert slack("auth.revoke", token="xoxp-old") == {"ok": True, "revoked": True}
    assert slack("auth.test", token="xoxp-old")["error"] == "token_revoked"
    assert slack("auth.test")["ok"]  # other tokens still work
    assert slack("api.test", foo="bar") == {"ok": True, "args": {"foo": "bar"}}
    assert slack("api.test", error="my_error")["error"] == "my_error"


def test_request_budget_answers_ratelimited_with_retry_after(state):
    client = TestClient(create_app(state))
    env = EnvironmentStore(state).create("slack_default", request_budget=RequestBudget(requests=3, per_seconds=60)).env_id
    url = f"/api/env/{env}/services/slack/api/auth.test"
    answers = [client.post(url, headers={"Authorization": "Bearer x"}) for _ in range(4)]
    assert [r.status_code for r in answers] == [200, 200, 200, 429]
    assert answers[3].json() == {"ok": False, "error": "ratelimited"}
    assert 1 <= int(answers[3].headers["Retry-After"]) <= 60
    lifted = client.put(f"/api/platform/environments/{env}/request-budget", json=None,
                        headers={"X-API-Key": api_key(state)})
    assert lifted.status_code == 200 and lifted.json()["request_budget"] is None
    assert client.post(url, headers={"Authorization": "Bearer x"}).status_code == 200


def test_request_budget_specs():
    assert RequestBudget.parse("50/60") == RequestBudget(requests=50, per_seconds=60)
    assert RequestBudget.parse("20/m") == RequestBudget(requests=20, per_seconds=60)
    for bad in ("", "x/60", "10/0", "0/60", "10/-1"):
        with pytest.raises(ValueError):
            RequestBudget.parse(bad)


def test_posting_to_a_user_id_posts_in_the_dm(slack):
    posted = slack("chat.postMessage", channel=JOHN, text="hi John")
    dm = posted["channel"]
    assert dm.startswith("D") and slack("conversations.info", channel=dm)["channel"]["is_im"]
    assert slack("conversations.open", users=JOHN)["channel"]["id"] == dm  # the same DM, reused
    assert slack("chat.postMessage", channel=JOHN, text="again")["channel"] == dm
    assert [m["text"] for m in slack("conversations.history", channel=dm)["messages"]] == ["again", "hi John"]


def test_blocks_are_kept_and_threads_show_their_replies(slack):
    blocks = '[{"type": "section", "text": {"type": "mrkdwn", "text": "*bold*"}}]'
    posted = slack("chat.postMessage", channel=GENERAL, blocks=blocks, text="fallback")
    assert posted["message"]["blocks"][0]["type"] == "section"
    assert slack("chat.postMessage", channel=GENERAL, blocks="[not json")["error"] == "invalid_blocks"
    slack("chat.postMessage", channel=GENERAL, text="first", thread_ts=posted["ts"])
    slack("chat.postMessage", channel=GENERAL, text="second", thread_ts=posted["ts"], token="xoxb-other")
    parent = next(m for m in slack("conversations.history", channel=GENERAL)["messages"] if m["ts"] == posted["ts"])
    assert parent["reply_count"] == 2 and parent["reply_users"] == [AGENT]
    assert parent["blocks"][0]["text"]["text"] == "*bold*"
    assert float(parent["latest_reply"]) > float(posted["ts"])


def test_reply_broadcast_shows_in_the_channel_too(slack):
    slack("chat.postMessage", channel=GENERAL, text="also here", thread_ts=AGENT_MSG, reply_broadcast="true")
    latest = slack("conversations.history", channel=GENERAL, limit=1)["messages"][0]
    assert (latest["text"], latest["subtype"], latest["thread_ts"]) == ("also here", "thread_broadcast", AGENT_MSG)
    created = slack("conversations.create", name="fresh")["channel"]
    assert created["creator"] == AGENT and created["created"] > 0


def test_request_budget_is_one_for_every_server_of_an_environment(state):
    """Two replica apps on one state (two processes, or the proxy's own and the server) share
    the budget, and a call that fails still spends from it."""
    first, second = TestClient(create_app(state)), TestClient(create_app(state))
    env = EnvironmentStore(state).create("slack_default", request_budget=RequestBudget(requests=3, per_seconds=60)).env_id
    url = f"/api/env/{env}/services/slack/api/"
    auth = {"Authorization": "Bearer x"}
    failed = first.post(url + "chat.postMessage", data={"channel": "nowhere", "text": "x"}, headers=auth)
    assert failed.json()["error"] == "channel_not_found"
    assert second.post(url + "auth.test", headers=auth).status_code == 200
    assert first.post(url + "auth.test", headers=auth).status_code == 200
    refused = second.post(url + "auth.test", headers=auth)
    assert refused.status_code == 429 and refused.json()["error"] == "ratelimited"


def test_every_user_carries_the_workspaces_team_id(state):
    """Slack gives every user object its team; seeds keep the team in `teams` alone."""
    client = TestClient(create_app(state))
    env = EnvironmentStore(state).create("slack_default").env_id
    url = f"/api/env/{env}/services/slack/api/"
    auth = {"Authorization": "Bearer x"}
    team = client.post(url + "auth.test", headers=auth).json()["team_id"]
    assert team == "T01WORKSPACE"
    users = client.post(url + "users.list", headers=auth).json()["members"]
    assert users and {u["team_id"] for u in users} == {team} and {u["profile"]["team"] for u in users} == {team}
    assert client.post(url + "users.info", data={"user": JOHN}, headers=auth).json()["user"]["team_id"] == team


def test_nobody_is_kicked_from_general(slack):
    """Slack's rule: #general holds the whole workspace."""
    members = slack("conversations.members", channel=GENERAL)["members"]
    other = next(m for m in members if m != slack("auth.test")["user_id"])
    assert slack("conversations.kick", channel=GENERAL, user=other) == {"ok": False, "error": "cant_kick_from_general"}
    assert other in slack("conversations.members", channel=GENERAL)["members"]


def test_users_carry_the_workspace_role_the_seed_gives_and_slacks_profile_fields(state):
    """slack_bench_v2 makes Robert and Morgan admins in user_teams: Slack says so on their user objects."""
    client = TestClient(create_app(state), raise_server_exceptions=False)
    env = EnvironmentStore(state).create("slack_bench_v2").env_id
    url = f"/api/env/{env}/services/slack/api/users.info"
    robert = client.post(url, headers={"Authorization": "Bearer xoxb-1"}, data={"user": ROBERT}).json()["user"]
    john = client.post(url, headers={"Authorization": "Bearer xoxb-1"}, data={"user": JOHN}).json()["user"]
    assert (robert["is_admin"], robert["is_owner"], john["is_admin"]) == (True, False, False)
    assert robert["is_email_confirmed"] is True
    assert all(robert["profile"][f"image_{n}"].startswith("https://") for n in (24, 32, 48, 72, 192, 512))
    listed = client.post(f"/api/env/{env}/services/slack/api/users.list", headers={"Authorization": "Bearer xoxb-1"}).json()
    assert [m["id"] for m in listed["members"] if m["is_admin"]] == [ROBERT, "U07MORGANFREE"]


def test_search_pages_by_cursor_highlights_and_answers_slacks_match_objects(slack):
    for n in range(3):
        slack("chat.postMessage", channel=GENERAL, text=f"Quarterly report part {n}")
    first = slack("search.messages", query="quarterly", count=2, cursor="*", highlight="true")
    assert first["messages"]["total"] == 3 and len(first["messages"]["matches"]) == 2
    match = first["messages"]["matches"][0]
    assert match["text"].startswith("\ue000Quarterly\ue001 report")
    assert match["channel"]["id"] == GENERAL and match["channel"]["is_channel"] is True
    assert match["permalink"].startswith("https://test-workspace.slack.com/archives/") and match["iid"]
    assert {"reactions", "reply_count"}.isdisjoint(match), "a search match is not a history message"
    rest = slack("search.messages", query="quarterly", count=2, cursor=first["response_metadata"]["next_cursor"])
    assert [m["text"] for m in rest["messages"]["matches"]] == ["Quarterly report part 0"]
    assert rest["response_metadata"]["next_cursor"] == ""
    paged = slack("search.messages", query="quarterly", count=2, page=2)["messages"]
    assert paged["pagination"] == {"total_count": 3, "page": 2, "per_page": 2, "page_count": 2, "first": 3, "last": 3}
    assert slack("search.messages", query="quarterly", cursor="not-a-cursor")["error"] == "invalid_cursor"
