"""Every Slack method driven with random and malformed arguments: never a 5xx, never a traceback."""

import json
import string

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from detour_core.paths import StatePaths
from detour.apps.server import create_app
from mock_services.slack.catalogue import CATALOGUE
from mock_services.store import EnvironmentStore

# Argument names Slack's methods take, so that the fuzzer reaches past the required-argument check.
ARG_NAMES = sorted({arg for m in CATALOGUE.values() for arg in m.required} | {
    "text", "thread_ts", "limit", "cursor", "count", "page", "types", "user", "users", "oldest", "latest",
    "inclusive", "include_num_members", "profile", "name", "value", "link", "emoji", "timestamp", "file",
    "include_users", "include_disabled", "include_count", "unfurls", "blocks", "post_at", "is_private", "full",
    "sort_dir", "ts_from", "ts_to", "description", "handle", "channels", "initial_comment", "test", "error"})

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(min_value=-2**80, max_value=2**80),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=40),
                    st.sampled_from(["C01ABCD1234", "general", "U02JOHNDOE1", "1699564800.000123", "", "-1",
                                     "9" * 30, "nan", "in 5 minutes", "[]", "{}", '[{"id": 1}]', "F0000000000"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.text(max_size=8), inner, max_size=3)),
                      max_leaves=6)
params = st.dictionaries(st.one_of(st.sampled_from(ARG_NAMES), st.text(max_size=10)), values, max_size=6)


@pytest.fixture(scope="module")
def replica(tmp_path_factory):
    state = StatePaths(tmp_path_factory.mktemp("fuzz")).ensure()
    client = TestClient(create_app(state), raise_server_exceptions=False)
    return client, EnvironmentStore(state).create("slack_bench_v2").env_id


def assert_slack_shaped(response) -> None:
    assert response.status_code < 500, response.text
    assert "Traceback" not in response.text
    body = response.json()
    assert isinstance(body, dict) and isinstance(body.get("ok"), bool), body
    assert body.get("error") != "fatal_error"


@settings(max_examples=700, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(method=st.sampled_from(sorted(CATALOGUE)), args=params, as_json=st.booleans())
def test_random_json_and_form_arguments(replica, method, args, as_json):
    client, env = replica
    url = f"/api/env/{env}/services/slack/api/{method}"
    headers = {"Authorization": "Bearer xoxb-fuzz"}
    if as_json:
        body = json.dumps(args, allow_nan=True)
        response = client.post(url, content=body, headers={**headers, "Content-Type": "application/json"})
    else:
        form = {k: v if isinstance(v, str) else json.dumps(v) for k, v in args.items()}
        response = client.post(url, data=form, headers=headers)
    assert_slack_shaped(response)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(method=st.sampled_from(sorted(CATALOGUE)), raw=st.binary(max_size=64),
       content_type=st.sampled_from(["application/json", "application/x-www-form-urlencoded",
                                     "multipart/form-data; boundary=x", "text/plain", ""]))
def test_malformed_bodies(replica, method, raw, content_type):
    client, env = replica
    response = client.post(f"/api/env/{env}/services/slack/api/{method}", content=raw,
                           headers={"Authorization": "Bearer xoxb-fuzz", "Content-Type": content_type})
    assert_slack_shaped(response)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(method=st.one_of(st.sampled_from(sorted(CATALOGUE)), st.text(
    alphabet=string.ascii_letters + string.digits + "._-~!$&'()*+,;=:@", min_size=1, max_size=30).filter(
    lambda m: m not in (".", ".."))))
def test_any_method_name_is_answered(replica, method):
    client, env = replica
    response = client.get(f"/api/env/{env}/services/slack/api/{method}", params={"token": "xoxb-fuzz"})
    assert_slack_shaped(response)


WEIRD = [[], {}, [{"a": 1}], 2**70, -1, 0, 1e308, True, None, "", " ", "x" * 5000, "9" * 40, "1.5.7", "💥"]


@pytest.mark.parametrize("method", sorted(n for n, m in CATALOGUE.items() if m.answer == "state"))
def test_every_argument_at_once_with_each_odd_value(replica, method):
    """A directed sweep beside the random one: every argument name set to the same odd value."""
    client, env = replica
    for value in WEIRD:
        response = client.post(f"/api/env/{env}/services/slack/api/{method}", json=dict.fromkeys(ARG_NAMES, value),
                               headers={"Authorization": "Bearer xoxb-fuzz"})
        assert_slack_shaped(response)
