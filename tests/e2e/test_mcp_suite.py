"""The acme suite over MCP (examples/suites/acme_mcp.json): a scripted agent that reaches GitHub,
Linear, Google, HubSpot, Notion and Box only through their hosted MCP servers, with the official `mcp` SDK's client,
unmodified in a namespace sandbox, passes every task through `detour suite run`; the suite's
assertions on the traffic name the tools it called and no REST or GraphQL request of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import needs_namespaces

ROOT = Path(__file__).parents[2]
SUITE = ROOT / "examples" / "suites" / "acme_mcp.json"
DETOUR = str(Path(sys.executable).parent / "detour")


@needs_namespaces
def test_an_agent_passes_the_acme_tasks_with_the_vendors_mcp_servers(tmp_path):
    agent = f"python3 {ROOT / 'tests' / 'agents' / 'acme_mcp.py'}"
    env = os.environ | {"DETOUR_HOME": str(tmp_path / "home")}
    try:
        done = subprocess.run([DETOUR, "suite", "run", str(SUITE), "--agent", agent, "--backend", "namespace",
                               "--json"], env=env, capture_output=True, text=True, timeout=600)
    finally:
        subprocess.run([DETOUR, "stack", "stop"], env=env, capture_output=True, timeout=60)
    report = json.loads(done.stdout or "{}")
    failed = {t["id"]: t["stderr_tail"] or t["assertions"] for t in report.get("tests", []) if not t["passed"]}
    assert done.returncode == 0 and not failed and len(report["tests"]) == 5, (failed, done.stderr[-2000:])
