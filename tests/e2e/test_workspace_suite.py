"""examples/suites/acme_workspace.json: tasks across the Google Docs and Tasks replicas and the
older Slack, Linear and Calendar ones, passed by a scripted agent using the vendors' clients
through the proxy (tests/agents/acme_workspace.py), and failed by one that does nothing."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import needs_namespaces
from tests.e2e.test_world_suite import ROOT, suite_run

SUITE = ROOT / "examples" / "suites" / "acme_workspace.json"

pytestmark = needs_namespaces


def test_the_scripted_agent_passes_every_task_and_one_that_does_nothing_none(tmp_path: Path):
    tests = json.loads(SUITE.read_text())["tests"]
    done = suite_run(tmp_path / "home", f"python3 {ROOT / 'tests' / 'agents' / 'acme_workspace.py'}", "--json",
                     suite=SUITE)
    report = json.loads(done.stdout or "{}")
    failed = {t["id"]: t["stderr_tail"] or t["assertions"] for t in report.get("tests", []) if not t["passed"]}
    assert done.returncode == 0 and not failed and len(report["tests"]) == len(tests), (failed, done.stderr[-2000:])
    idle = suite_run(tmp_path / "home", "python3 -c pass", suite=SUITE)
    assert idle.returncode == 1 and f"0/{len(tests)}" in idle.stdout, idle.stdout[-2000:]
