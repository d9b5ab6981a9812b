import pytest
from fastapi.testclient import TestClient

from detour.apps.server import create_app
from mock_services.store import EnvironmentStore

AUTH = {"Authorization": "Bearer xoxb-test"}


@pytest.fixture
def client(state) -> TestClient:
    return TestClient(create_app(state))


@pytest.fixture
def env(state) -> str:
    return EnvironmentStore(state).create("slack_default").env_id


def call(client, env, method, auth=AUTH, prefix="", **kwargs):
    return client.post(f"/api/env/{env}/services/slack/{prefix}{method}", headers=auth, **kwargs)


@pytest.mark.parametrize("prefix", ["", "api/"])
@pytest.mark.parametrize("body", [{"data": {"channel": "general", "text": "hi"}},
                                  {"json": {"channel": "C01ABCD1234", "text": "hi"}}])
def test_post_message_by_name_or_id_with_form_or_json(client, env, state, prefix, body):
    r = call(client, env, "chat.postMessage", prefix=prefix, **body)
    assert r.status_code == 200
    out = r.json()
    assert out["ok"] and out["channel"] == "C01ABCD1234"
    assert out["message"]["text"] == "hi"
    [insert] = EnvironmentStore(state).diff(env).inserts
    assert insert["__table__"] == "messages" and insert["message_id"] == out["ts"]
    assert insert["user_id"] == "U01AGENBOT9"


def test_token_may_come_as_a_parameter(client, env):
    r = client.get(f"/api/env/{env}/services/slack/auth.test", params={"token": "xoxb-1"})
    assert r.json()["ok"] and r.json()["user_id"] == "U01AGENBOT9"


def test_ts_is_slack_shaped_and_unique(client, env):
    stamps = {call(client, env, "chat.postMessage", data={"channel": "general", "text": str(i)}).json()["ts"]
              for i in range(20)}
    assert len(stamps) == 20
    assert all(len(ts.split(".")[1]) == 6 for ts in stamps)


def test_history_is_newest_first_and_paginates(client, env):
    for i in range(3):
        call(client, env, "chat.postMessage", data={"channel": "general", "text": f"m{i}"})
    first = call(client, env, "conversations.history", data={"channel": "general", "limit": 2}).json()
    assert [m["text"] for m in first["messages"]] == ["m2", "m1"] and first["has_more"]
    rest = call(client, env, "conversations.history",
                data={"channel": "general", "limit": 10, "cursor": first["response_metadata"]["next_cursor"]}).json()
    assert [m["text"] for m in rest["messages"]][0] == "m0"
    assert rest["response_metadata"]["next_cursor"] == "" and not rest["has_more"]


def test_list_methods(client, env):
    channels = call(client, env, "conversations.list").json()["channels"]
    assert {c["name"] for c in channels} == {"general", "random"}
    assert all(c["is_member"] for c in channels)
    members = call(client, env, "users.list").json()["members"]
    assert [m["name"] for m in members] == ["agent1", "johndoe", "robertsmith"]


def test_reaction_is_stored_and_shown(client, env, state):
    ts = "1699564800.000123"
    assert call(client, env, "reactions.add", data={"channel": "general", "timestamp": ts, "name": ":tada:"}).json()["ok"]
    history = call(client, env, "conversations.history", data={"channel": "general"}).json()["messages"]
    [msg] = [m for m in history if m["ts"] == ts]
    assert msg["reactions"] == [{"name": "tada", "users": ["U01AGENBOT9"], "count": 1}]
    assert EnvironmentStore(state).diff(env).inserts == [
        {"message_id": ts, "user_id": "U01AGENBOT9", "reaction_type": "tada", "__table__": "message_reactions"}]


@pytest.mark.parametrize("method, kwargs, error", [
    ("chat.postMessage", {"data": {"channel": "nope", "text": "x"}}, "channel_not_found"),
    ("chat.postMessage", {"data": {"channel": "general"}}, "no_text"),
    ("chat.postMessage", {"data": {"text": "x"}}, "channel_not_found"),  # as Slack documents it
    ("chat.postMessage", {"data": {"channel": "general", "text": "x", "thread_ts": "1.1"}}, "thread_not_found"),
    ("reactions.add", {"data": {"channel": "general", "timestamp": "1.1", "name": "tada"}}, "message_not_found"),
    ("reactions.add", {"data": {"channel": "general", "timestamp": "1699564800.000123", "name": "no way"}}, "invalid_name"),
    ("conversations.history", {"data": {"channel": "general", "cursor": "garbage!"}}, "invalid_cursor"),
    ("conversations.list", {"data": {"types": "bogus"}}, "invalid_types"),
    ("chat.postMessage", {"content": b"{not json", "headers": {**AUTH, "Content-Type": "application/json"}}, "invalid_json"),
])
def test_errors_are_slack_shaped(client, env, method, kwargs, error):
    headers = kwargs.pop("headers", AUTH)
    r = call(client, env, method, auth=headers, **kwargs)
    assert r.status_code == 200
    assert r.json()["ok"] is False and r.json()["error"] == error


def test_already_reacted(client, env):
    args = {"channel": "general", "timestamp": "1699564800.000123", "name": "tada"}
    call(client, env, "reactions.add", data=args)
    assert call(client, env, "reactions.add", data=args).json()["error"] == "already_reacted"


def test_missing_token_unknown_method_and_unknown_environment(client, env):
    assert call(client, env, "auth.test", auth={}).json() == {"ok": False, "error": "not_authed"}
    r = call(client, env, "nope.method")  # Slack answers unknown methods with HTTP 200, never a 404
    assert r.status_code == 200 and r.json() == {"ok": False, "error": "unknown_method", "req_method": "nope.method"}
    r = call(client, "env-missing", "auth.test")
    assert r.status_code == 404 and r.json()["error"] == "environment_not_found"
    r = call(client, "bad!id", "auth.test")
    assert r.status_code == 400 and r.json()["error"] == "invalid_environment_id"


def test_a_slack_call_to_a_linear_environment_is_refused(client, state):
    linear = EnvironmentStore(state).create("linear_default").env_id
    assert call(client, linear, "auth.test").json()["error"] == "not_a_slack_environment"
