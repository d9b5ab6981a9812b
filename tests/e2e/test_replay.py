"""Replay: a scripted agent's run (Slack and Linear, through the proxy, bodies captured, a frozen
clock) sent again from its records into a fresh environment gives the same answers and the same
final state; a replay into a different starting state says where it diverges."""

import json
import os
import subprocess

from detour_core.policy import Policy, policy_file, save_policy
from tests.e2e.test_cli import DETOUR
from tests.e2e.test_clock import AGENTS, FROZEN


def recorded_run(live_stack, api_client, template: str) -> str:
    env = api_client.environments.create(template, clock=FROZEN, seed="replay").env_id
    save_policy(policy_file(live_stack.state, env), Policy(capture="bodies", body_limit=1 << 20))
    assert live_stack.run(env, AGENTS[template], ".py").exit_code == 0
    return env


def test_a_run_replayed_from_its_records_answers_and_ends_the_same(live_stack, api_client):
    for template in ("slack_default", "linear_default"):
        env = recorded_run(live_stack, api_client, template)
        done = api_client.replay(env=env)
        assert (done.sent, done.mismatches, done.states_match) == (done.answers_matched, [], True), done
        assert done.sent >= 1 and not done.diverged


def test_a_replay_that_diverges_says_where_and_exits_1(live_stack, api_client, tmp_path):
    env = recorded_run(live_stack, api_client, "slack_default")
    records = tmp_path / "records.jsonl"
    records.write_text(subprocess.run([DETOUR, "logs", "--env", env, "--json"], check=True, capture_output=True,
                                      text=True, env=os.environ | {"DETOUR_HOME": str(live_stack.state.home)}).stdout)
    done = api_client.replay(records=records, template="slack_bench_v2")  # another workspace: no #general as seeded
    assert done.diverged and done.states_match is None
    assert json.loads(done.model_dump_json())["mismatches"], done



def test_a_replay_from_a_file_repeats_given_the_clock_and_seed_and_names_the_clock_when_not(
        live_stack, api_client, tmp_path):
    env = recorded_run(live_stack, api_client, "slack_default")
    records = tmp_path / "records.jsonl"
    records.write_text(subprocess.run([DETOUR, "logs", "--env", env, "--json"], check=True, capture_output=True,
                                      text=True, env=os.environ | {"DETOUR_HOME": str(live_stack.state.home)}).stdout)
    same = api_client.replay(records=records, template="slack_default", clock="2026-03-02T09:30:00Z", seed="replay")
    assert (same.mismatches, same.sent) == ([], same.answers_matched), same
    moved = api_client.replay(records=records, template="slack_default")  # the wall clock, another seed
    first = moved.mismatches[0]
    assert first.cause.startswith("likely the clock") and "--clock" in first.cause, moved
    assert all(m.cause.startswith(f"likely request {first.n} ") for m in moved.mismatches[1:]), moved
