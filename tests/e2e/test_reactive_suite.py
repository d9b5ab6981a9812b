"""The reactive acme suite (examples/suites/acme_reactive.json): each task's work comes from a
timeline of Acme's people, and a scripted Slack app on Socket Mode, unmodified in a namespace
sandbox, passes every task through `detour suite run`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import needs_namespaces

ROOT = Path(__file__).parents[2]
SUITE = ROOT / "examples" / "suites" / "acme_reactive.json"
DETOUR = str(Path(sys.executable).parent / "detour")


@needs_namespaces
def test_a_slack_app_passes_the_tasks_its_colleagues_give_it(tmp_path):
    agent = f"python3 {ROOT / 'tests' / 'agents' / 'acme_reactive.py'}"
    done = subprocess.run([DETOUR, "suite", "run", str(SUITE), "--agent", agent, "--backend", "namespace", "--json"],
                          env=os.environ | {"DETOUR_HOME": str(tmp_path / "home")}, capture_output=True, text=True,
                          timeout=600)
    report = json.loads(done.stdout or "{}")
    failed = {t["id"]: t["stderr_tail"] or t["assertions"] for t in report.get("tests", []) if not t["passed"]}
    assert done.returncode == 0 and not failed and len(report["tests"]) == 3, (failed, done.stderr[-2000:])
