"""Rollouts at once: `client.rollouts` streams each test's outcomes as they finish, each in an
environment of its own that is gone once scored, and `detour suite run --workers 4` scores as
`--workers 1` does, with a progress bar only where a person watches."""

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from detour_core.errors import EnvironmentNotFound

SUITE = Path(__file__).parents[1] / "fixtures" / "early-suite" / "linear_bench.json"
AGENT = Path(__file__).parents[1] / "agents" / "linear_early_suite.py"
DETOUR = str(Path(sys.executable).parent / "detour")


def scores(report: dict) -> dict[str, list[bool]]:
    return {t["id"]: [a["passed"] for a in t["assertions"]] for t in report["tests"]}


def test_rollouts_stream_each_test_n_times_in_environments_of_their_own(api_client):
    outcomes = list(api_client.rollouts(SUITE, ["python3", str(AGENT)], n=2, workers=3))
    assert sorted((o.id, o.rollout) for o in outcomes) == sorted((f"test_{i}", r) for i in range(1, 11) for r in (0, 1))
    assert {o.score for o in outcomes} == {1.0}, [(o.id, o.stderr_tail[-300:]) for o in outcomes if o.score < 1]
    assert len({o.env_id for o in outcomes}) == 20  # never an environment shared
    for outcome in outcomes:
        with pytest.raises(EnvironmentNotFound):
            api_client.environments.get(outcome.env_id)


def test_a_lazy_agent_scores_zero_and_a_closed_stream_leaves_nothing(api_client):
    before = {e.env_id for e in api_client.environments.list()}
    stream = api_client.rollouts(SUITE, ["python3", str(AGENT), "--lazy"], n=3, workers=2)
    first = next(stream)
    stream.close()  # the rollouts under way finish and are deleted; no more start
    assert first.passed is False and first.score < 1
    assert {e.env_id for e in api_client.environments.list()} == before


def suite_run(home: Path, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([DETOUR, "suite", "run", str(SUITE), "--agent", f"python3 {AGENT}", *flags],
                          env=os.environ | {"DETOUR_HOME": str(home)}, capture_output=True, text=True, timeout=600)


def test_four_workers_score_as_one(tmp_path):
    one, four = (suite_run(tmp_path / "home", "--json", "--workers", n) for n in ("1", "4"))
    assert one.returncode == four.returncode == 0, (one.stderr[-2000:], four.stderr[-2000:])
    first, second = json.loads(one.stdout), json.loads(four.stdout)
    assert [t["id"] for t in second["tests"]] == [t["id"] for t in first["tests"]]  # the suite's order
    assert scores(first) == scores(second) and len(scores(first)) == 10


def test_the_progress_bar_shows_on_a_terminal_only(tmp_path):
    """On a terminal the bar counts the tests and those passed; piped, stdout is the table alone."""
    primary, secondary = pty.openpty()
    with subprocess.Popen([DETOUR, "suite", "run", str(SUITE), "--agent", f"python3 {AGENT}", "--workers", "2",
                           "--test", "test_1"], stdout=secondary, stderr=subprocess.PIPE,
                          env=os.environ | {"DETOUR_HOME": str(tmp_path / "home"), "COLUMNS": "120"}) as proc:
        os.close(secondary)
        shown = b""
        while chunk := _read(primary):
            shown += chunk
        assert proc.wait(600) == 0, proc.stderr.read()[-2000:]
    os.close(primary)
    assert b"running linear_bench.json" in shown and b"passed" in shown
    piped = suite_run(tmp_path / "home", "--test", "test_1")
    assert "running linear_bench.json" not in piped.stdout and "1/1 passed" in piped.stdout


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 65536)
    except OSError:  # the terminal's other end closed
        return b""
