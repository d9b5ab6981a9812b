import json

import pytest

from mock_services.assertions import InvalidAssertions, evaluate, load_spec, parse_spec
from mock_services.store import StateDiff

DIFF = StateDiff(
    inserts=[{"__table__": "messages", "channel_id": "C1", "message_text": "Hello team", "user_id": "U1"},
             {"__table__": "messages", "channel_id": "C2", "message_text": "other", "user_id": "U1"}],
    updates=[{"__table__": "channels", "before": {"channel_id": "C1", "topic_text": "old", "updated_at": 1},
              "after": {"channel_id": "C1", "topic_text": "Weekly standup", "updated_at": 2}}],
    deletes=[{"__table__": "channel_members", "channel_id": "C1", "user_id": "U2"}],
)


@pytest.mark.parametrize("assertion, passed", [
    ({"diff_type": "added", "entity": "messages", "where": {"channel_id": {"eq": "C1"}}}, True),
    ({"diff_type": "added", "entity": "messages", "where": {"message_text": {"i_contains": "HELLO"}}, "expected_count": 1}, True),
    ({"diff_type": "added", "entity": "messages", "expected_count": 2}, True),
    ({"diff_type": "added", "entity": "messages", "expected_count": {"min": 3}}, False),
    ({"diff_type": "added", "entity": "messages", "where": {"message_text": {"regex": "^Hel+o"}}}, True),
    ({"diff_type": "added", "entity": "messages", "where": {"channel_id": "C9"}}, False),
    ({"diff_type": "added", "entity": "channels"}, False),
    ({"diff_type": "removed", "entity": "channel_members", "where": {"user_id": {"in": ["U2", "U3"]}}}, True),
    ({"diff_type": "changed", "entity": "channels", "where": {"channel_id": "C1"},
      "expected_changes": {"topic_text": {"to": {"contains": "Weekly"}}}, "ignore": ["updated_at"]}, True),
    ({"diff_type": "changed", "entity": "channels", "where": {"channel_id": "C1"},
      "expected_changes": {"topic_text": {"from": "old", "to": "Weekly standup"}}}, True),  # updated_at is bookkeeping
    ({"diff_type": "changed", "entity": "channels", "where": {"channel_id": "C1"},
      "expected_changes": {"updated_at": {"to": 2}}}, False),  # strict: topic_text changed too
    ({"diff_type": "changed", "entity": "channels", "where": {"channel_id": "C1"},
      "expected_changes": {"topic_text": {"from": "nope"}}, "ignore": ["updated_at"]}, False),
    ({"diff_type": "changed", "entity": "channels", "where": {"channel_id": "C1"},
      "expected_changes": {"channel_id": {"to": "C1"}}, "ignore": ["topic_text"]}, True),  # already at "to"
    ({"diff_type": "changed", "entity": "channels", "where": {"channel_id": "C1"},
      "expected_changes": {"channel_id": {"to": "C2"}}, "ignore": ["topic_text"]}, False),
])
def test_assertions(assertion, passed):
    [result] = evaluate(parse_spec([assertion]), DIFF)
    assert result.passed is passed, result.message


def test_global_ignore_fields_relax_strict_mode():
    spec = parse_spec({"assertions": [{"diff_type": "changed", "entity": "channels",
                                       "expected_changes": {"topic_text": {"to": "Weekly standup"}}}],
                       "ignore_fields": {"global": ["updated_at"]}})
    assert evaluate(spec, DIFF)[0].passed


def test_a_suite_needs_a_test_id_and_merges_its_ignore_fields(tmp_path):
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({"ignore_fields": {"global": ["updated_at"]}, "tests": [
        {"id": "t1", "prompt": "p", "assertions": [{"diff_type": "changed", "entity": "channels",
                                                    "expected_changes": {"topic_text": {"to": {"eq": "Weekly standup"}}}}]}]}))
    with pytest.raises(InvalidAssertions, match="name a test with --test"):
        load_spec(suite)
    assert evaluate(load_spec(suite, "t1"), DIFF)[0].passed


@pytest.mark.parametrize("data, message", [
    ({"nothing": 1}, "expected a list"),
    ([{"diff_type": "grown", "entity": "x"}], "invalid assertions"),
    ({"assertions": [{"diff_type": "added", "entity": "x"}], "aggregates": []}, "not supported"),
])
def test_bad_specs_get_clear_errors(data, message):
    with pytest.raises(InvalidAssertions, match=message):
        parse_spec(data)


def test_unknown_predicate():
    with pytest.raises(InvalidAssertions, match="unknown predicate 'like'"):
        evaluate(parse_spec([{"diff_type": "added", "entity": "messages", "where": {"x": {"like": "a"}}}]), DIFF)


def test_fields_of_related_rows_are_resolved(state):
    from mock_services.assertions import evaluate_environment
    from mock_services.store import EnvironmentStore
    store = EnvironmentStore(state)
    env = store.create("slack_default").env_id
    with store.open(env, write=True) as s:
        s.insert("channels", {"channel_id": "C9", "channel_name": "rl-project"})
        s.insert("channel_members", {"channel_id": "C9", "user_id": "U02JOHNDOE1"})
    spec = parse_spec([{"diff_type": "added", "entity": "channel_members",
                        "where": {"channel_name": {"i_contains": "RL-project"}, "real_name": "John Doe"}}])
    assert evaluate_environment(spec, store, env)[0].passed
    wrong = parse_spec([{"diff_type": "added", "entity": "channel_members", "where": {"channel_name": "general"}}])
    assert not evaluate_environment(wrong, store, env)[0].passed


def test_text_predicates_read_json_values_as_compact_json_and_paths_reach_into_them():
    """AgentDiff's engine: `contains` on a message's blocks or an event's start reads its JSON
    text; `start.dateTime` names a field inside a JSON column."""
    row = {"__table__": "messages", "blocks": [{"type": "section", "text": {"text": "Ship it"}}],
           "start": {"dateTime": "2018-06-24T00:00:00-07:00", "timeZone": "America/Los_Angeles"}, "n": 5}
    diff = StateDiff(inserts=[row], updates=[], deletes=[])

    def passed(where: dict) -> bool:
        spec = parse_spec({"assertions": [{"diff_type": "added", "entity": "messages", "where": where}]})
        return evaluate(spec, diff)[0].passed
    assert passed({"blocks": {"contains": '"text":"Ship it"'}}) and passed({"blocks": {"i_contains": "SHIP IT"}})
    assert passed({"blocks": {"not_contains": "Hold it"}}) and not passed({"blocks": {"not_contains": "Ship"}})
    assert passed({"start": {"contains": "2018-06-24T00:00"}}) and passed({"start.timeZone": {"eq": "America/Los_Angeles"}})
    assert passed({"start.dateTime": {"contains": "2018-06-24T00:00"}}) and not passed({"start.date": {"exists": True}})
    assert not passed({"n": {"contains": "5"}})  # a number has no text


def test_changes_name_paths_into_json_fields():
    before = {"id": "e1", "start": {"dateTime": "2018-06-29T10:00:00-07:00"}, "location": "A"}
    after = {"id": "e1", "start": {"dateTime": "2018-06-29T16:00:00-07:00"}, "location": "A"}
    diff = StateDiff(inserts=[], deletes=[], updates=[{"__table__": "calendar_events", "before": before, "after": after}])
    spec = parse_spec({"assertions": [{"diff_type": "changed", "entity": "calendar_events", "where": {"id": {"eq": "e1"}},
                                       "expected_changes": {"start.dateTime": {"to": {"contains": "T16:00"}}}}]})
    assert evaluate(spec, diff)[0].passed
