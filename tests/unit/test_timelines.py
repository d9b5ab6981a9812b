"""Timelines: a template's people act on the environment's clock, through the Slack replica
with their own tokens (so the diff shows them as theirs), and answer the agent's reply in
their thread; a timeline that names no earlier step, or a step with no time, is refused in
one line."""

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from detour_core.errors import InvalidTemplate
from mock_services.clock import Clock, moved
from mock_services.slack import catalogue
from mock_services.slack.router import dispatch
from mock_services.store import EnvironmentStore
from mock_services.timelines.model import Step
from mock_services.timelines.run import set_clock

ENGINEERING, AGENT, JOHN, ROBERT = "C03IJKL9012", "U01AGENBOT9", "U02JOHNDOE1", "U03ROBERT23"
FROZEN = Clock().set(datetime(2026, 3, 2, 9, 30, tzinfo=UTC).timestamp())
TIMELINE = [
    {"id": "ask", "person": JOHN, "do": "chat.postMessage", "at": "+2m",
     "args": {"channel": "#engineering", "text": f"<@{AGENT}> the deploy failed"}},
    {"person": ROBERT, "do": "reactions.add", "when": {"event": "message", "in_thread_of": "ask"},
     "args": {"channel": "{event.channel}", "timestamp": "{event.ts}", "name": "eyes"}},
]


@pytest.fixture
def store(state):
    return EnvironmentStore(state)


def advance(store, env_id, seconds):
    set_clock(store, env_id, moved(store.get(env_id).clock, advance_s=seconds))


def people_rows(store, env_id):
    return [(r["__table__"], r["user_id"]) for r in store.diff(env_id).inserts]


def test_people_act_when_their_time_comes_and_answer_the_agent_in_their_thread(store):
    env_id = store.create("slack_bench_v2", clock=FROZEN, timeline=[Step(**s) for s in TIMELINE]).env_id
    advance(store, env_id, 60)
    assert people_rows(store, env_id) == [], "nothing is due a minute in"
    advance(store, env_id, 60)
    asked = store.diff(env_id).inserts
    assert [(r["user_id"], r["message_text"]) for r in asked] == [(JOHN, f"<@{AGENT}> the deploy failed")]
    dispatch(store, env_id, catalogue.lookup("chat.postMessage"), store.credentials(env_id).tokens[AGENT],
             {"channel": ENGINEERING, "text": "elsewhere"})
    advance(store, env_id, 1)
    assert ("message_reactions", ROBERT) not in people_rows(store, env_id), "a message outside the thread"
    reply = dispatch(store, env_id, catalogue.lookup("chat.postMessage"), store.credentials(env_id).tokens[AGENT],
                     {"channel": ENGINEERING, "text": "rolling back", "thread_ts": asked[0]["message_id"]})
    advance(store, env_id, 1)
    reactions = [r for r in store.diff(env_id).inserts if r["__table__"] == "message_reactions"]
    assert [(r["user_id"], r["message_id"], r["reaction_type"]) for r in reactions] == [(ROBERT, reply["ts"], "eyes")]
    advance(store, env_id, 3600)
    assert len(store.diff(env_id).inserts) == 4, "each step acts once"


@pytest.mark.parametrize(("steps", "error"), [
    ([{"person": JOHN, "do": "chat.postMessage"}], "needs either `at` or `when`"),
    ([{"person": JOHN, "do": "chat.postMessage", "at": "soon"}], "a duration is a number and a unit"),
])
def test_a_step_without_a_time_is_refused(steps, error):
    with pytest.raises(ValueError, match=error):
        [Step(**s) for s in steps]


def test_a_reaction_to_no_earlier_step_is_refused_in_one_line(store):
    with pytest.raises(InvalidTemplate, match="in_thread_of 'nobody' names no earlier step"):
        store.create("slack_bench_v2", timeline=[Step(**TIMELINE[1] | {"when": {"event": "message",
                                                                               "in_thread_of": "nobody"}})])


def test_a_template_carries_its_timeline_and_a_bad_step_is_one_line(state, store):
    seed = json.loads((Path(__file__).parents[2] / "mock_services/slack/templates/slack_bench_v2.json").read_text())
    state.templates_dir.mkdir(parents=True, exist_ok=True)
    (state.templates_dir / "incident.json").write_text(json.dumps({**seed, "_detour": {"timeline": TIMELINE[:1]}}))
    env_id = store.create("incident", clock=FROZEN).env_id
    advance(store, env_id, 120)
    assert people_rows(store, env_id) == [("messages", JOHN)]
    (state.templates_dir / "broken.json").write_text(json.dumps({**seed, "_detour": {"timeline": [
        {"person": JOHN, "do": "chat.postMessage", "at": "whenever"}]}}))
    with pytest.raises(InvalidTemplate) as refused:
        store.create("broken")
    assert "\n" not in str(refused.value) and "whenever" in str(refused.value), str(refused.value)
