"""detour's suites under the harnesses RL teams use, each in a venv of its own with its users'
package from the registry and detour-client beside it (tests/harness_venvs.py), against a
`detour serve` stack over HTTP. A few acme tests are played by two policies, the scripted one
(tests/agents/acme_suite.py's program for the test is the action) and one that does nothing;
each harness's reward equals the stack's own rollouts' score for the same test and policy.

- OpenEnv: detour_client.openenv's server (OpenEnv's own create_app, uvicorn) and its EnvClient
  over the WebSocket session, plus OpenEnv's plain HTTP /schema.
- verifiers 0.4: its own OpenEnv taskset (verifiers.v1.tasksets.openenv) pointed at that server,
  its engine (OpenEnvEnv.run) stepping it; the player's replies are the policy's actions, where
  a model's would be, and the reward is the one verifiers records on the trace.
- Harbor: each test a Harbor task (detour_client.harbor.write_tasks) run by `harbor run` on detour's
  environment type and verifier (by import path); the scripted policy is Harbor's oracle agent
  running the program as the task's solution, the idle one its nop agent.
- NeMo Gym: detour_client.nemo_gym's resources server behind NeMo Gym's own simple_agent, the
  suite's rows posted by its own rollout collection (RolloutCollectionHelper, through its head
  server); the model is a scripted Responses API server writing the policy's program as the
  execute_code call, and the reward is the one /verify returns."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from detour_client import StackClient
from tests.conftest import needs_namespaces
from tests.harness_venvs import REPO, client_wheel, detour_serve, harness_venv, run

pytestmark = needs_namespaces

SUITE = REPO / "examples" / "suites" / "acme.json"
AGENT = REPO / "tests" / "agents" / "acme_suite.py"
HARNESSES = REPO / "tests" / "harnesses"
TESTS = ["acme_1", "acme_4", "acme_7"]  # a Linear+Slack, a Box+Slack and a Linear-state task: lean on time
IDLE = "pass"
# OpenEnv's current distribution is `openenv` (openenv-core stopped at 0.3); verifiers' extra asks for it.
REQUIREMENTS = {"openenv": ["openenv", "uvicorn"], "verifiers-openenv": ["verifiers[openenv]", "uvicorn"],
                "harbor": ["harbor"], "nemo-gym": ["nemo-gym"]}


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[tuple[str, str]]:
    with detour_serve(tmp_path_factory.mktemp("harnesses") / "home") as platform:
        yield platform


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return client_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def expected(served) -> dict[str, dict[str, float]]:
    """The stack's own rollouts of the tests, by policy: what every harness must score."""
    url, key = served
    stack = StackClient(url, api_key=key)
    scores = {}
    for policy, agent in (("scripted", ["python3", str(AGENT)]), ("idle", ["python3", "-c", IDLE])):
        outcomes = [o for test in TESTS for o in stack.rollouts(SUITE, agent, test=test, backend="namespace")]
        scores[policy] = {o.id: o.score for o in outcomes}
    assert set(scores["scripted"].values()) == {1.0} and set(scores["idle"].values()) != {1.0}
    assert stack.environments() == []
    return scores


def play(harness: str, wheel: Path, served: tuple[str, str], tmp_path: Path) -> dict:
    """The harness's program (tests/harnesses/NAME.py) in its venv: the tests' rewards per policy, as JSON."""
    python = harness_venv(harness, REQUIREMENTS[harness], wheel)
    stack_free = subprocess.run([python, "-c", "import mitmproxy"], capture_output=True, text=True)
    assert stack_free.returncode != 0  # nothing of the stack came with the client
    url, key = served
    done = run([python, HARNESSES / f"play_{harness.split('-')[0]}.py", url, key, SUITE, AGENT, IDLE, *TESTS], tmp_path)
    return json.loads(done.stdout.splitlines()[-1])


def test_openenv_steps_detour_episodes_with_the_rewards_of_the_stacks_rollouts(served, wheel, expected, tmp_path):
    report = play("openenv", wheel, served, tmp_path)
    assert report["rewards"] == expected
    assert report["schema"]["action"]["title"] == "DetourAction"
    assert report["left"] == []  # each episode's environment went with its submit


def test_verifiers_openenv_taskset_scores_detour_episodes_as_the_stack_does(served, wheel, expected, tmp_path):
    report = play("verifiers-openenv", wheel, served, tmp_path)
    assert report["rewards"] == expected
    assert report["verifiers"].startswith("0.4") and report["left"] == []


def test_harbor_runs_tasks_on_detour_environments_scored_on_their_diffs(served, wheel, expected, tmp_path):
    report = play("harbor", wheel, served, tmp_path)
    assert report["rewards"] == expected
    assert all(t["passed"] == t["total"] > 0 for t in report["trials"]["scripted"].values())  # the calls are in the diff
    assert report["left"] == []  # each trial's environment went with its stop


def test_nemo_gym_collects_detour_rollouts_with_the_rewards_of_the_stacks_rollouts(served, wheel, expected, tmp_path):
    report = play("nemo-gym", wheel, served, tmp_path)
    assert report["rewards"] == expected
    assert [status for status, _ in report["refused"]] == [422, 409]  # an unknown test; a tool call before a seed
    assert "acme_1, acme_2" in report["refused"][0][1]
    assert report["abandoned"] == 1  # the verified sessions' environments went; the one never verified stayed...
    assert report["left"] == []  # ...until the server's shutdown
