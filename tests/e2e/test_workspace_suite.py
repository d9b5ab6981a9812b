"""The #53 suites, each passed by a scripted agent using the vendors' clients through the proxy
and failed by one that does nothing:

- examples/suites/acme_workspace.json: tasks across the Google Docs, Tasks, Sheets and Chat
  replicas, the Microsoft 365 ones (Outlook mail and calendar, Teams, OneDrive) and the older
  Slack, Linear and Calendar ones (tests/agents/acme_workspace.py);
- examples/suites/acme_teams.json: tasks across the PagerDuty, Sentry, Asana, Intercom, SendGrid,
  Discord and Trello replicas and the older Slack and Linear ones (tests/agents/acme_teams.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import needs_namespaces
from tests.e2e.test_world_suite import ROOT, suite_run

pytestmark = needs_namespaces


@pytest.mark.parametrize("name", ["acme_workspace", "acme_teams"])
def test_the_scripted_agent_passes_every_task_and_one_that_does_nothing_none(name: str, tmp_path: Path):
    suite = ROOT / "examples" / "suites" / f"{name}.json"
    tests = json.loads(suite.read_text())["tests"]
    done = suite_run(tmp_path / "home", f"python3 {ROOT / 'tests' / 'agents' / f'{name}.py'}", "--json", suite=suite)
    report = json.loads(done.stdout or "{}")
    failed = {t["id"]: t["stderr_tail"] or t["assertions"] for t in report.get("tests", []) if not t["passed"]}
    assert done.returncode == 0 and not failed and len(report["tests"]) == len(tests), (failed, done.stderr[-2000:])
    idle = suite_run(tmp_path / "home", "python3 -c pass", suite=suite)
    assert idle.returncode == 1 and f"0/{len(tests)}" in idle.stdout, idle.stdout[-2000:]
