"""`detour suite run` on the Gmail tasks (tests/fixtures/gmail-suite/gmail_bench.json), written
as a user asks them, with a scripted agent that uses google-api-python-client through the proxy
as Google's guides write it (tests/agents/gmail_suite.py): every task passes, and an agent that
does nothing passes none."""

import json
import os
import subprocess
import sys
from pathlib import Path

SUITE = Path(__file__).parents[1] / "fixtures" / "gmail-suite" / "gmail_bench.json"
AGENT = Path(__file__).parents[1] / "agents" / "gmail_suite.py"
DETOUR = str(Path(sys.executable).parent / "detour")


def run_suite(tmp_path: Path, agent: str) -> dict:
    done = subprocess.run([DETOUR, "suite", "run", str(SUITE), "--agent", agent, "--json"],
                          env=os.environ | {"DETOUR_HOME": str(tmp_path / "home")}, capture_output=True, text=True,
                          timeout=900)
    assert done.stdout.strip(), done.stderr[-3000:]
    return json.loads(done.stdout)


def test_every_gmail_task_passes_with_a_scripted_agent(tmp_path):
    report = run_suite(tmp_path, f"python3 {AGENT}")
    failed = {t["id"]: ([a["message"] for a in t["assertions"] if not a["passed"]], t["stderr_tail"][-500:])
              for t in report["tests"] if not t["passed"]}
    assert len(report["tests"]) == 10 and failed == {}


def test_an_agent_that_does_nothing_passes_no_gmail_task(tmp_path):
    report = run_suite(tmp_path, "true")
    assert [t["passed"] for t in report["tests"]] == [False] * 10
