"""The acme world's suite (examples/suites/acme.json): 15 tasks, each across two or more
services, passed by a scripted agent using the vendors' clients through the proxy, and failed by
an agent that does nothing; `detour suite run` prints the scores."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import needs_namespaces

ROOT = Path(__file__).parents[2]
SUITE = ROOT / "examples" / "suites" / "acme.json"
DETOUR = str(Path(sys.executable).parent / "detour")

pytestmark = needs_namespaces


def suite_run(home: Path, agent: str, *flags: str, suite: Path = SUITE) -> subprocess.CompletedProcess:
    return subprocess.run([DETOUR, "suite", "run", str(suite), "--agent", agent, "--backend", "namespace", *flags],
                          env=os.environ | {"DETOUR_HOME": str(home)}, capture_output=True, text=True, timeout=900)


def test_every_task_crosses_services_and_the_scripted_agent_passes_them(tmp_path):
    tests = json.loads(SUITE.read_text())["tests"]
    assert len(tests) >= 15
    for test in tests:  # each task's assertions (its writes, or its reads' traffic) name two or more services
        named = {a["entity"].split(".")[0] if "." in a["entity"] else a["where"]["service"] for a in test["assertions"]
                 if a["diff_type"] != "requested" or "service" in a.get("where", {})}
        assert len(named) >= 2, test["id"]
    done = suite_run(tmp_path / "home", f"python3 {ROOT / 'tests' / 'agents' / 'acme_suite.py'}", "--json")
    report = json.loads(done.stdout or "{}")
    failed = {t["id"]: t["stderr_tail"] or t["assertions"] for t in report.get("tests", []) if not t["passed"]}
    assert done.returncode == 0 and not failed and len(report["tests"]) == len(tests), (failed, done.stderr[-2000:])


def test_an_agent_that_does_nothing_passes_no_task_and_the_scores_are_printed(tmp_path):
    done = suite_run(tmp_path / "home", "python3 -c pass")
    assert done.returncode == 1
    assert "0/15" in done.stdout, done.stdout[-2000:]
