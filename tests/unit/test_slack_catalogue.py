"""The Slack method catalogue against slack_sdk's own method list, and every method answered in Slack's shape."""

import inspect
import re

import pytest
from fastapi.testclient import TestClient
from slack_sdk import WebClient

from detour.apps.server import create_app
from mock_services.slack.catalogue import CATALOGUE, RETIRED_FAMILIES, UNSUPPORTED_FAMILIES
from mock_services.slack.methods import METHODS
from mock_services.store import EnvironmentStore

LEFT_OUT = (*UNSUPPORTED_FAMILIES, *RETIRED_FAMILIES)

# Where slack_sdk's signature and Slack's reference disagree on what is required, the
# reference wins: the app-level token of apps.connections.open travels as the token itself;
# conversations.canvases.create may start empty; discoverableContacts.lookup needs an email;
# users.getPresence without a user is the caller's own.
REFERENCE_OVER_SDK = {"apps.connections.open": (), "conversations.canvases.create": ("channel_id",),
                      "users.discoverableContacts.lookup": ("email",), "users.getPresence": ()}


def sdk_methods() -> dict[str, tuple[str, ...]]:
    """slack_sdk's WebClient: each API method it calls, with the keyword arguments it requires."""
    found = {}
    for _, function in inspect.getmembers(WebClient, inspect.isfunction):
        match = re.search(r'api_call\(\s*"([A-Za-z0-9.]+)"', inspect.getsource(function))
        if match:
            params = inspect.signature(function).parameters.values()
            found[match.group(1)] = tuple(p.name for p in params
                                          if p.kind == p.KEYWORD_ONLY and p.default is p.empty)
    return found


def test_the_catalogue_is_slack_sdks_method_list_less_the_families_answered_whole():
    sdk = {name for name in sdk_methods() if not name.startswith(LEFT_OUT)}
    assert len(sdk) > 150
    assert sorted(sdk - set(CATALOGUE)) == [], "methods slack_sdk knows that the catalogue lacks"
    assert sorted(set(CATALOGUE) - sdk) == [], "catalogue rows slack_sdk does not know"


def test_required_arguments_match_the_sdk_where_the_reference_agrees():
    sdk = sdk_methods()
    for name, method in CATALOGUE.items():
        assert method.required == REFERENCE_OVER_SDK.get(name, sdk[name]), name


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
             "files": '[{"id": "F0000000000"}]'}


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
    status, body = answer(name, {})
    assert status == 200 and body["error"] == "invalid_arguments"
    assert body["response_metadata"]["messages"][0] == f"[ERROR] missing required field: {CATALOGUE[name].required[0]}"
