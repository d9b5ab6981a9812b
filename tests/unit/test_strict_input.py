"""Input from outside is read strictly: an unknown key or name is an error that names it, in
detour's words (policy files, the platform API's models, assertions); a suite file, in
AgentDiff's format, keeps what detour does not read and names it in a warning."""

import json

import pytest
from fastapi.testclient import TestClient

from detour.apps.server import create_app
from detour_core.credentials import api_key
from detour_core.policy import InvalidPolicy, Rule, load_policy
from detour_core.strict import KeptKeys
from mock_services.assertions import (InvalidAssertions, UnknownEntity, evaluate_environment, load_spec, load_suite,
                                        parse_spec)
from mock_services.store import EnvironmentStore
from sandbox.base import Limits


@pytest.mark.parametrize("policy, message", [
    ({"alow": ["api.partner.test"]}, "unknown key 'alow' (did you mean 'allow'?)"),
    ({"capture": "bodies", "redcat": ["secret-.*"]}, "unknown key 'redcat' (did you mean 'redact'?)"),
    ({"rules": [{"action": "deny", "host": "slack.com", "paht": "/api/*"}]}, "rules.0: unknown key 'paht'"),
    ({"secrets": [{"name": "K", "hosts": ["api.partner.test"], "from_env": "K", "injcet": ["query"]}]},
     "secrets.0: unknown key 'injcet' (did you mean 'inject'?)"),
    ({"rules": ["deny slack.com/api/chat.delete"]}, "rules.0: write ACTION METHOD HOST/PATH"),
])
def test_a_policy_file_with_an_unknown_key_is_refused_naming_it(tmp_path, policy, message):
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(policy))
    with pytest.raises(InvalidPolicy) as refused:
        load_policy(path)
    assert str(refused.value).startswith(f"policy {path}: ") and message in str(refused.value)


def test_a_policy_file_takes_rules_as_the_command_line_writes_them(tmp_path):
    texts = ["deny POST slack.com/api/chat.delete", "allow GET api.partner.test/v1/*", "allow * *.partner.test"]
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({"allow": ["api.partner.test"], "rules": [
        texts[0], {"action": "allow", "method": "GET", "host": "api.partner.test", "path": "/v1/*"}, texts[2]]}))
    policy = load_policy(path)
    assert policy.rules == [Rule.parse(text) for text in texts]
    assert [rule.text() for rule in policy.rules] == ["deny POST slack.com/api/chat.delete",
                                                      "allow GET api.partner.test/v1/*", "allow * *.partner.test/*"]


def test_limits_refuse_a_name_they_do_not_have():
    with pytest.raises(ValueError, match=r"unknown key 'timeout' \(did you mean 'timeout_s'\?\); known: cpu_s"):
        Limits.model_validate({"timeout": 1})


@pytest.fixture
def platform(state) -> TestClient:
    return TestClient(create_app(state), headers={"X-API-Key": api_key(state)})


@pytest.mark.parametrize("method, path, body, where, message", [
    ("post", "/api/platform/environments", {"template": "slack_default", "ttl": 60},
     ["body"], "unknown key 'ttl' (did you mean 'ttl_s'?)"),
    ("post", "/api/platform/environments", {"template": "slack_default", "request_budget": {"requests": 5, "per_second": 1}},
     ["body", "request_budget"], "unknown key 'per_second' (did you mean 'per_seconds'?)"),
    ("put", "/api/platform/environments/e1/request-budget", {"requests": 5, "window": 1},
     ["body"], "unknown key 'window'"),
])
def test_the_platform_api_refuses_unknown_keys_naming_them(platform, method, path, body, where, message):
    platform.post("/api/platform/environments", json={"template": "slack_default", "env_id": "e1"})
    answer = platform.request(method, path, json=body)
    assert answer.status_code == 422
    [problem] = answer.json()["detail"]
    assert problem["loc"] == where and message in problem["msg"]
    assert [e["env_id"] for e in platform.get("/api/platform/environments").json()["data"]] == ["e1"]
    assert platform.get("/api/platform/environments/e1").json()["request_budget"] is None


@pytest.mark.parametrize("data, message", [
    ([{"diff_type": "added", "entity": "messages", "expected_cout": 1}], "unknown key 'expected_cout'"),
    ({"assertions": [{"diff_type": "added", "entity": "messages"}], "strcit": False}, "unknown key 'strcit'"),
    ([{"diff_type": "changed", "entity": "channels", "expected_changes": {"topic_text": {"too": "x"}}}],
     "unknown key 'too' (did you mean 'to'?)"),
    ([{"diff_type": "added", "entity": "messages", "where": {"message_text": {"contians": "hi"}}}],
     "unknown predicate 'contians' (did you mean 'contains'?)"),
])
def test_assertions_refuse_unknown_keys_and_predicates_when_read(data, message):
    """Before any row is looked at: a predicate is checked even where no row would reach it."""
    with pytest.raises(InvalidAssertions, match="invalid assertions") as refused:
        parse_spec(data)
    assert message in str(refused.value)


def test_a_suite_file_keeps_keys_detour_does_not_read_and_names_them_in_one_warning(tmp_path):
    """AgentDiff's suite files are read as AgentDiff reads them (its own slack_bench_v2.json
    carries `_step_sequence` in a test): kept, named once, never refused; its assertions,
    which AgentDiff's schema closes, are still checked whole."""
    suite = tmp_path / "suite.json"
    entry = {"id": "t1", "prompt": "p", "seed_template": "slack_default",
             "assertions": [{"diff_type": "added", "entity": "messages"}]}
    suite.write_text(json.dumps({"name": "s", "tets": [], "tests": [
        entry, {**entry, "id": "t2", "promt": "q", "_step_sequence": [{"tool": "chat.postMessage"}]}]}))
    with pytest.warns(KeptKeys) as kept:
        loaded = load_suite(suite)
    assert [str(w.message) for w in kept] == [
        f"{suite}: kept keys detour does not read: tets (did you mean 'tests'?), "
        "tests.1.promt (did you mean 'prompt'?), tests.1._step_sequence"]
    assert loaded.tests[1].model_extra["_step_sequence"] == [{"tool": "chat.postMessage"}]
    with pytest.warns(KeptKeys):
        assert load_spec(suite, "t2").assertions == loaded.tests[1].assertions
    with pytest.warns(KeptKeys, match="test t3: kept keys detour does not read: seed_templat"):
        parse_spec({**entry, "id": "t3", "seed_templat": "x"})
    suite.write_text(json.dumps({"tests": [{**entry, "assertions": [{"diff_type": "added", "entity": "m", "x": 1}]}]}))
    with pytest.raises(InvalidAssertions, match=r"tests\.0\.assertions\.0: unknown key 'x'"):
        load_suite(suite)


def test_an_entity_the_service_does_not_have_is_named(state):
    store = EnvironmentStore(state)
    env = store.create("slack_default").env_id
    typo = parse_spec([{"diff_type": "removed", "entity": "mesages", "expected_count": 0}])
    with pytest.raises(UnknownEntity, match=f"slack environment {env}: unknown entity 'mesages' "
                                            r"\(did you mean 'messages'\?\)"):
        evaluate_environment(typo, store, env)
    # a table of the service that neither the seed nor the agent filled is no typo
    [pins] = evaluate_environment(parse_spec([{"diff_type": "added", "entity": "pins", "expected_count": 0}]), store, env)
    assert pins.passed


def test_every_table_a_pack_seeds_or_keys_is_one_it_declares():
    """What an assertion may name (pack.tables) covers every table its templates hold, and
    every table the pack describes elsewhere."""
    from detour_core.registry import packs
    from mock_services.linear.model import TABLES as LINEAR_TABLES
    described = {"linear": set(LINEAR_TABLES.values())}
    for pack in packs():
        seeded = {table for template in pack.templates.glob("*.json") for table in json.loads(template.read_text())}
        named = seeded | set(pack.primary_keys) | set(pack.signature_tables) | described.get(pack.name, set())
        assert named <= set(pack.tables), (pack.name, named - set(pack.tables))


def test_a_seed_in_agentdiffs_format_keeps_what_detour_does_not_read():
    """A key that is no service's table and holds no rows, or a private one, is named in one
    warning and left out of the environment; a declared table that holds no rows is refused."""
    from detour_core.errors import InvalidTemplate
    from mock_services.templates import parse_template
    seed = {"users": [{"user_id": "U1", "username": "a"}], "channels": [], "messages": [],
            "_step_sequence": [{"tool": "chat.postMessage"}], "about": "a note"}
    with pytest.warns(KeptKeys, match="template 's': kept keys detour does not read: _step_sequence, about"):
        template = parse_template("s", json.dumps(seed))
    assert template.service == "slack" and set(template.tables) == {"users", "channels", "messages"}
    with pytest.raises(InvalidTemplate, match="must be an object of table name -> list of rows"), \
            pytest.warns(KeptKeys):
        parse_template("s", json.dumps({**seed, "messages": "oops"}))
