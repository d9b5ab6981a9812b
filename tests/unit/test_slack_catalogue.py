"""The Slack method catalogue against slack_sdk's own method list, and every method answered in Slack's shape."""

import pytest
from fastapi.testclient import TestClient

from detour.apps.server import create_app
from mock_services.slack import generate_spec
from mock_services.slack.catalogue import (CATALOGUE, REFERENCE_OVER_SDK, RETIRED_FAMILIES, SPEC,
                                          UNSUPPORTED_FAMILIES)
from mock_services.slack.methods import METHODS
from mock_services.store import EnvironmentStore

LEFT_OUT = (*UNSUPPORTED_FAMILIES, *RETIRED_FAMILIES)


def test_the_spec_is_what_the_generator_reads_from_the_installed_slack_sdk():
    assert generate_spec.spec()["methods"] == SPEC, "run: python -m mock_services.slack.generate_spec " \
                                                     "mock_services/slack/spec/slack_sdk.json"


def test_the_generator_finds_a_method_whose_call_has_a_comment_before_its_name():
    assert {"files.remote.add", "files.remote.update"} <= set(SPEC)
    assert SPEC["users.setPhoto"]["file_parts"] == ["image"]


def test_the_catalogue_is_slack_sdks_method_list_less_the_families_answered_whole():
    sdk = {name for name in SPEC if not name.startswith(LEFT_OUT)}
    assert len(sdk) > 150
    assert sorted(sdk - set(CATALOGUE)) == [], "methods slack_sdk knows that the catalogue lacks"
    assert sorted(set(CATALOGUE) - sdk) == [], "catalogue rows slack_sdk does not know"


def test_required_arguments_are_the_sdks_where_the_reference_agrees():
    for name, method in CATALOGUE.items():
        assert method.required == REFERENCE_OVER_SDK.get(name, tuple(SPEC[name]["required"])), name


def test_state_rows_and_handlers_are_the_same_set():
    assert {n for n, m in CATALOGUE.items() if m.answer == "state"} == set(METHODS)


@pytest.fixture(scope="module")
def answer(tmp_path_factory):
    from detour_core.paths import StatePaths
    state = StatePaths(tmp_path_factory.mktemp("home")).ensure()
    client = TestClient(create_app(state), raise_server_exceptions=False)
    env = EnvironmentStore(state).create("slack_default").env_id

    def call(method: str, params: dict) -> tuple[int, dict]:
        # a token per method, so that auth.revoke revokes only its own
        response = client.post(f"/api/env/{env}/services/slack/api/{method}",
                               headers={"Authorization": f"Bearer xoxb-{method}"}, data=params)
        return response.status_code, response.json()
    return call


PLAUSIBLE = {"channel": "C01ABCD1234", "channel_id": "C01ABCD1234", "user": "U02JOHNDOE1", "users": "U02JOHNDOE1",
             "ts": "1699564800.000123", "timestamp": "1699564800.000123", "message_ts": "1699564800.000123",
             "email": "john@example.com", "query": "team", "name": "catalogue-check", "text": "hi",
             "time": "in 5 minutes", "post_at": "4102444800", "num_minutes": "5", "presence": "away",
             "filename": "a.txt", "length": "2", "title": "t", "type": "link", "topic": "t", "purpose": "p",
             "files": '[{"id": "F0000000000"}]', "external_id": "ext-1", "external_url": "https://example.com/d"}


@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_every_method_answers_in_slacks_shape(answer, name):
    method = CATALOGUE[name]
    # state-backed methods also get the optional arguments they need in practice (Slack ignores the rest)
    given = PLAUSIBLE if method.answer == "state" else {}
    status, body = answer(name, {**given, **{arg: PLAUSIBLE.get(arg, "x") for arg in method.required}})
    assert status == 200, (status, body)
    assert isinstance(body.get("ok"), bool)
    if method.answer == "unsupported":
        assert body == {"ok": False, "error": "not_supported_by_replica", "method": name}
    elif method.answer == "retired":
        assert body == {"ok": False, "error": "method_deprecated"}
    elif method.answer == "empty":
        assert body == {"ok": True, **method.empty_result}
    else:
        assert body["ok"] or body["error"] not in ("unknown_method", "fatal_error", "invalid_arguments"), body


@pytest.mark.parametrize("name", ["admin.users.list", "channels.history", "im.list", "mpim.open", "groups.info"])
def test_families_answered_whole(answer, name):
    status, body = answer(name, {})
    assert status == 200
    assert body["error"] == ("not_supported_by_replica" if name.startswith("admin.") else "method_deprecated")


@pytest.mark.parametrize("name", [n for n, m in CATALOGUE.items() if m.required][:40])
def test_a_missing_required_argument_is_invalid_arguments(answer, name):
    """...except an absent channel or query, which Slack answers as it documents them."""
    status, body = answer(name, {})
    absent = {"channel": "channel_not_found", "query": "no_query"}
    if set(CATALOGUE[name].required) & set(absent):
        assert status == 200 and body["error"] in absent.values()
        return
    assert status == 200 and body["error"] == "invalid_arguments"
    assert body["response_metadata"]["messages"][0] == f"[ERROR] missing required field: {CATALOGUE[name].required[0]}"
