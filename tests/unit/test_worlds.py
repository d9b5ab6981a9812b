"""Worlds: one environment holding several services with the same people, one diff, and the
DSL's `service.table`; on SQLite, and on Postgres in the suite's second pass."""

from __future__ import annotations

import json

import pytest

from detour_core.errors import InvalidTemplate
from detour_core.registry import pack
from mock_services.assertions import UnknownEntity, evaluate_environment, parse_spec
from mock_services.store import EnvironmentStore
from mock_services.templates import parse_template
from mock_services.worlds.acme import build

VARIABLES = {"SLACK_TOKEN", "LINEAR_API_KEY", "GOOGLE_OAUTH_ACCESS_TOKEN", "BOX_DEVELOPER_TOKEN"}


@pytest.fixture
def store(state) -> EnvironmentStore:
    return EnvironmentStore(state)


def test_the_shipped_acme_is_what_its_data_builds():
    assert build.main(["--check"]) == 0


ACME = ["slack", "linear", "calendar", "box", "gmail", "drive", "github", "jira", "hubspot", "stripe", "twilio", "zendesk",
        "notion", "tasks", "docs", "sheets", "people", "chat", "pagerduty", "sendgrid", "asana", "intercom", "sentry",
        "outlook_mail", "outlook_calendar", "teams", "onedrive", "discord", "trello", "gitlab"]


def test_acme_holds_its_services_whose_people_are_the_same(store):
    info = store.create("acme")
    assert info.held() == ACME and info.acting_user == "agent"
    emails = {}
    for service in info.held():
        with store.open(info.env_id, service=service) as state:
            assert state.service == service and state.info.acting_user == info.acting_users[service]
            descriptor = pack(service)
            if not descriptor.user_email:  # an account, not people (Stripe's customers, Twilio's account)
                continue
            key = descriptor.primary_key(descriptor.users_table)[0]
            for person in info.people:  # ids are text in a world's people; a pack's may be numbers (GitHub's)
                [user] = [u for u in state.rows(descriptor.users_table) if str(u[key]) == person.ids[service]]
                emails.setdefault(person.person, set()).add(user[descriptor.user_email])
    assert all(len(found) == 1 for found in emails.values()) and len(emails) == 6
    assert all(set(p.ids) == {"slack", "linear", "calendar", "box", "gmail", "drive", "github", "jira", "hubspot",
                               "zendesk", "notion", "pagerduty", "sendgrid", "asana", "intercom", "sentry",
                               "outlook_mail", "outlook_calendar", "teams", "onedrive", "discord", "trello", "gitlab"} for p in info.people)
    assert VARIABLES <= set(store.credentials(info.env_id).variables)


def test_acting_as_a_person_gives_their_identity_everywhere(store):
    info = store.create("acme", acting_user="priya")
    priya = next(p for p in info.people if p.person == "priya")
    assert {s: info.acting_users[s] for s in priya.ids} == priya.ids
    tokens = store.credentials(info.env_id)
    assert priya.ids["slack"] in tokens.variables["SLACK_TOKEN"] and priya.ids["box"] in tokens.variables["BOX_DEVELOPER_TOKEN"]
    with pytest.raises(InvalidTemplate, match="none of world 'acme'"):
        store.create("acme", acting_user="mallory")


def test_a_pack_sees_only_its_own_tables_and_the_diff_tags_each_row(store):
    env = store.create("acme").env_id
    with store.open(env, write=True, service="slack") as slack:
        slack.insert("messages", {"message_id": "9.1", "channel_id": "C04ENGINEER", "user_id": "U01AGENBOT9",
                                  "message_text": "ENG-5 triage moved"})
    with store.open(env, write=True, service="linear") as linear:
        assert linear.rows("messages") == [] and len(linear.rows("users")) == 6
        issue = linear.first("issues", identifier="ENG-5")
        linear.update("issues", {**issue, "title": "Checkout fails for large carts"})
    diff = store.diff(env)
    assert [(r["__service__"], r["__table__"]) for r in diff.inserts] == [("slack", "slack.messages")]
    assert [(u["__service__"], u["__table__"]) for u in diff.updates] == [("linear", "linear.issues")]
    spec = parse_spec([
        {"diff_type": "added", "entity": "slack.messages", "where": {"message_text": {"contains": "ENG-5"}}},
        {"diff_type": "added", "entity": "messages", "expected_count": 1},  # bare: Slack alone has it
        {"diff_type": "changed", "entity": "linear.issues", "where": {"identifier": "ENG-5"},
         "expected_changes": {"title": {"to": "Checkout fails for large carts"}}},
        {"diff_type": "added", "entity": "box.box_files", "expected_count": 0},
    ])
    assert [r.passed for r in evaluate_environment(spec, store, env)] == [True, True, True, True]
    with pytest.raises(UnknownEntity, match="several services; name one of linear.users, slack.users"):
        evaluate_environment(parse_spec([{"diff_type": "added", "entity": "users"}]), store, env)


def test_a_service_the_world_does_not_hold_is_not_seen_as_it(store):
    env = store.create(["slack_default", "linear_default"]).env_id
    info = store.get(env)
    assert info.held() == ["slack", "linear"] and info.template == "slack_default+linear_default"
    assert info.acting_users == {"slack": "U01AGENBOT9", "linear": "2790a7ee-fde0-4537-9588-e233aa5a68d1"}
    with store.open(env, service="box") as state:
        assert state.service == "world" and state.rows("box_users") == []
    with pytest.raises(InvalidTemplate, match="different services"):
        store.create(["slack_default", "slack_bench_v2"])


def test_a_saved_world_makes_the_same_world(store):
    from mock_services.templates import save_template
    env = store.create("acme", acting_user="john").env_id
    with store.open(env, write=True, service="slack") as slack:
        slack.insert("messages", {"message_id": "9.2", "channel_id": "C04ENGINEER", "user_id": "U02JOHNDOE1",
                                  "message_text": "kept"})
        slack.put_blob("b" * 40, b"uploaded")
    with store.open(env) as state:
        kept = state.blobs()
        save_template(store.state, "acme_after", state.template_body())
    again = store.create("acme_after")
    assert again.held() == ACME and again.acting_user == "john"
    with store.open(again.env_id, service="slack") as slack:
        assert slack.first("messages", message_id="9.2")["message_text"] == "kept"
        assert slack.blobs() == kept and kept["b" * 40] == b"uploaded" and len(kept) > 1  # and acme's own
    assert store.diff(again.env_id).inserts == []


@pytest.mark.parametrize("world, message", [
    ({"services": {"slack": None, "nope": None}}, "names no service 'nope'"),
    ({"services": {"slack": "linear_default"}}, "'linear_default' is not a slack template"),
    ({"services": {"slack": None}, "acting": "x"}, "acting person 'x' is not one of its people"),
])
def test_a_broken_world_template_is_refused_with_its_reason(state, world, message):
    from mock_services.templates import load_template
    with pytest.raises(InvalidTemplate, match=message):
        parse_template("w", json.dumps({"_world": world}), lambda seed: load_template(state, seed))


def test_a_worlds_own_rows_must_name_a_service_it_joins():
    with pytest.raises(InvalidTemplate, match="not `service.table`"):
        parse_template("w", json.dumps({"_world": {"services": {"slack": None}}, "linear.users": []}))


def test_a_link_to_a_row_that_is_not_there_breaks_the_build():
    tables = {"linear.issues": [{"identifier": "ENG-5"}]}
    build.check_links([{"about": "ok", "table": "linear.issues", "where": {"identifier": "ENG-5"}}], tables)
    with pytest.raises(build.BrokenWorld, match="ENG-6"):
        build.check_links([{"about": "ENG-6", "table": "linear.issues", "where": {"identifier": "ENG-6"}}], tables)


def test_the_platform_api_makes_diffs_and_deletes_a_world(state):
    from fastapi.testclient import TestClient

    from detour.apps.server import create_app
    client = TestClient(create_app(state, api_auth=False))
    made = client.post("/api/platform/environments", json={"template": ["slack_default", "linear_default"],
                                                            "env_id": "w1"})
    assert made.status_code == 201 and made.json()["service"] == "world"
    assert made.json()["services"] == ["slack", "linear"]
    sent = client.post("/api/env/w1/services/slack/api/chat.postMessage", headers={"Authorization": "Bearer x"},
                       json={"channel": "general", "text": "from a world"})
    assert sent.json()["ok"] is True
    [row] = client.get("/api/platform/environments/w1/diff").json()["inserts"]
    assert (row["__service__"], row["__table__"], row["message_text"]) == ("slack", "slack.messages", "from a world")
    assert client.delete("/api/platform/environments/w1").status_code in (200, 204)
    assert client.get("/api/platform/environments/w1").status_code == 404


def test_every_person_of_acme_has_a_calendar_each_colleague_sees_free_busy_in(state):
    """Each person's primary calendar exists, and the company's own people see one another's
    free/busy (a Workspace's default sharing: a `domain` rule), whoever asks."""
    from fastapi.testclient import TestClient

    from detour.apps.server import create_app
    from mock_services.rest.google import issue_token
    info = EnvironmentStore(state).create("acme")
    client = TestClient(create_app(state, api_auth=False))
    emails = [f"{person.person}@example.com" for person in info.people]
    base = f"/api/env/{info.env_id}/services/calendar/calendar/v3"
    for person in info.people:
        auth = {"Authorization": f"Bearer {issue_token(person.ids['calendar'])}"}
        answer = client.post(f"{base}/freeBusy", headers=auth, json={
            "timeMin": "2018-06-01T00:00:00Z", "timeMax": "2018-07-01T00:00:00Z", "items": [{"id": e} for e in emails]})
        assert {email: found.get("errors") for email, found in answer.json()["calendars"].items()} == \
            dict.fromkeys(emails), person.person
        assert [client.get(f"{base}/calendars/{e}", headers=auth).status_code for e in emails] == [200] * 6
    outsider = {"Authorization": f"Bearer {issue_token('user_kenji')}"}  # a calendar_default user, not Acme's
    assert client.get(f"{base}/calendars/john@example.com", headers=outsider).status_code == 404
