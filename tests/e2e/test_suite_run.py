"""`detour suite run` on AgentDiff's early suite, with scripted agents that use real clients
(slack_sdk, httpx on Linear's GraphQL, google-api-python-client, boxsdk) through the proxy, unaware of detour."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import needs_docker

SUITE = Path(__file__).parents[1] / "fixtures" / "early-suite"
AGENTS = Path(__file__).parents[1] / "agents"
DETOUR = str(Path(sys.executable).parent / "detour")


def suite_run(tmp_path, suite: str, agent: str, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([DETOUR, "suite", "run", str(SUITE / suite), "--agent", agent, "--json", *flags],
                          env=os.environ | {"DETOUR_HOME": str(tmp_path / "home")}, capture_output=True, text=True,
                          timeout=600)


# A suite on docker once (Linear's, the shortest): each official client's docker run is its
# pack's own client test; the suites add what the backend does not change, the scoring.
@pytest.mark.parametrize("suite, agent, tests, backend", [
    ("slack_bench.json", "slack_early_suite.py", 19, "auto"),
    ("linear_bench.json", "linear_early_suite.py", 10, "auto"),
    pytest.param("linear_bench.json", "linear_early_suite.py", 10, "docker", marks=needs_docker)])
def test_the_early_suite_passes_with_scripted_agents(tmp_path, suite, agent, tests, backend):
    passes(tmp_path, suite, agent, tests, backend)


# Environments in Postgres once (Linear's suite): Slack's replica on Postgres is the Postgres
# pass's (make test runs the store and replica tests again there); what a suite adds, the
# scoring of each test's diff, reads the store the same way for every service.
def test_the_early_suite_passes_with_environments_in_postgres(tmp_path, postgres_url):
    passes(tmp_path, "linear_bench.json", "linear_early_suite.py", 10, "auto")
    assert not list((tmp_path / "home" / "environments").glob("*.sqlite"))  # they were in Postgres


# Tasks Slack's rules make impossible for the suite's agent (a bot): editing or deleting someone
# else's message, which Slack refuses as the replica now does (issue #33's author rule).
IMPOSSIBLE = {"slack_bench.json": {"test_12": "cant_update_message", "test_15": "cant_delete_message"}}


def passes(tmp_path, suite: str, agent: str, tests: int, backend: str) -> None:
    """Every task passes but those Slack itself refuses, each with Slack's error."""
    done = suite_run(tmp_path, suite, f"python3 {AGENTS / agent}", "--backend", backend)
    assert done.stdout.strip(), done.stderr[-3000:]
    report = json.loads(done.stdout)
    failed = {t["id"]: t["stderr_tail"] for t in report["tests"] if not t["passed"]}
    impossible = IMPOSSIBLE.get(suite, {})
    assert sorted(failed) == sorted(impossible) and len(report["tests"]) == tests, failed
    assert all(error in failed[test] for test, error in impossible.items()), failed
    assert done.returncode == (1 if impossible else 0)


def test_agentdiffs_calendar_sample_passes_with_a_scripted_agent(tmp_path):
    """google-api-python-client, unmodified, over 10 of AgentDiff's Calendar tasks. test_39 asks
    for one event's update to be only a cancellation (strict mode) and also a new time: no state
    passes both under AgentDiff's own engine, so it fails here on exactly that assertion. One
    expects AgentDiff's replica where Google's answer differs, and the replica follows Google:
    quickAdd reads the date out of the title (test_59). Watch channels' rows keep AgentDiff's
    paths (test_45, test_54) while their answers give Google's URLs."""
    done = suite_run(tmp_path, "calendar_bench_sample.json", f"python3 {AGENTS / 'calendar_bench_sample.py'}")
    assert done.stdout.strip(), done.stderr[-3000:]
    report = json.loads(done.stdout)
    failed = {t["id"]: ([a["index"] for a in t["assertions"] if not a["passed"]], t["stderr_tail"][-300:])
              for t in report["tests"] if not t["passed"]}
    assert len(report["tests"]) == 10 and {test: indices for test, (indices, _) in failed.items()} == {
        "test_39": [0], "test_59": [4]}, failed
    stuck = next(a for t in report["tests"] if t["id"] == "test_39" for a in t["assertions"] if not a["passed"])
    assert "unexpected changes to" in stuck["message"]


def test_agentdiffs_box_sample_passes_with_a_scripted_agent(tmp_path):
    """Box's official SDK, unmodified, over 10 of AgentDiff's Box tasks: uploads, downloads of
    the seed's real contents, versions, comments, hubs, moves and the trash."""
    passes(tmp_path, "box_bench_sample.json", "box_bench_sample.py", 10, "auto")


def test_an_agent_that_does_nothing_fails_every_test(tmp_path):
    done = suite_run(tmp_path, "linear_bench.json", f"python3 {AGENTS / 'linear_early_suite.py'} --lazy")
    report = json.loads(done.stdout)
    assert done.returncode == 1
    assert [t["passed"] for t in report["tests"]] == [False] * 10
    assert all(t["exit_code"] == 0 for t in report["tests"])  # it ran fine, it just did nothing


def test_bad_suite_input(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"tests": []}')
    done = subprocess.run([DETOUR, "suite", "run", str(bad), "--agent", "true"], capture_output=True, text=True,
                          env=os.environ | {"DETOUR_HOME": str(tmp_path / "home")})
    assert done.returncode == 2 and "is not a test suite" in done.stderr
    done = subprocess.run([DETOUR, "suite", "run", str(SUITE / "slack_bench.json"), "--agent", "true", "--test", "nope"],
                          capture_output=True, text=True, env=os.environ | {"DETOUR_HOME": str(tmp_path / "home")})
    assert done.returncode == 2 and "unknown test 'nope'" in done.stderr


def test_the_json_report_says_why(tmp_path):
    """Each test's agent output, both streams, and the diff its assertions read. The suite
    carries a key detour does not read (`_step_sequence`, as AgentDiff's own slack_bench_v2.json
    does): it runs, with one warning naming the key."""
    suite = json.loads((SUITE / "slack_bench.json").read_text())
    suite["tests"][0]["_step_sequence"] = [{"tool": "chat.postMessage"}]
    (tmp_path / "suite.json").write_text(json.dumps(suite))
    agent = tmp_path / "agent.sh"
    agent.write_text("echo posting to general\n"
                     "curl -s -o /dev/null -H 'Authorization: Bearer xoxb-1' https://slack.com/api/chat.postMessage "
                     "-d channel=C01ABCD1234 -d text=hello\n"
                     "echo posted >&2\n")
    done = suite_run(tmp_path, str(tmp_path / "suite.json"), f"bash {agent}", "--test", "test_1")
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stderr.count("detour: warning:") == 1
    assert f"detour: warning: {tmp_path / 'suite.json'}: kept keys detour does not read: tests.0._step_sequence\n" \
        in done.stderr
    [test] = json.loads(done.stdout)["tests"]
    assert (test["passed"], test["stdout_tail"], test["stderr_tail"]) == (True, "posting to general\n", "posted\n")
    assert [(i["__table__"], i["message_text"]) for i in test["diff"]["inserts"]] == [("messages", "hello")]
