"""A template may carry what its environments start with besides rows: their time, their seed
and faults (a curriculum that replays); a bad one is refused naming the key."""

import json
from datetime import UTC, datetime

import pytest

from detour_core.errors import InvalidTemplate
from detour_core.policy import load_policy, policy_file
from mock_services import clock
from mock_services.templates import builtin_template_file, parse_template
from tests.unit.test_store import store  # noqa: F401 - the store on both databases


def curriculum(state, settings: dict) -> str:
    tables = json.loads(builtin_template_file("slack_default").read_text())
    state.templates_dir.mkdir(parents=True, exist_ok=True)
    (state.templates_dir / "curriculum.json").write_text(json.dumps({"_detour": settings, **tables}))
    return "curriculum"


def test_a_templates_now_seed_and_faults_open_each_environment(store):  # noqa: F811
    name = curriculum(store.state, {"now": "2025-06-02T09:00:00Z", "seed": "lesson-1",
                                    "faults": [{"kind": "rate_limited", "match": "POST slack.com/api/chat.postMessage",
                                                "times": 1}]})
    info = store.create(name)
    assert (info.clock.mode, info.seed) == ("frozen", "lesson-1")
    with store.open(info.env_id):
        assert clock.utcnow() == datetime(2025, 6, 2, 9, tzinfo=UTC)
    assert [f.kind for f in load_policy(policy_file(store.state, info.env_id)).faults] == ["rate_limited"]
    assert store.diff(info.env_id).inserts == []  # the settings are not rows


def test_bad_template_settings_are_refused_by_name():
    with pytest.raises(InvalidTemplate, match="unknown key 'nwo'"):
        parse_template("t", json.dumps({"_detour": {"nwo": "2025-01-01"}, "channels": [], "messages": []}))
