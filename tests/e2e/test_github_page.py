"""docs/services/github.md's commands, run as a reader would: every code block the page says
runs `inside detour run`, in the page's order, in one environment of `github_default` on the
namespace backend (git, PyGithub, curl and gh, Octokit's GraphQL). Each must succeed, and
together they leave what the page says: the pushed branch merged, the issue its pull request
names closed."""

from __future__ import annotations

import re
from pathlib import Path

import detour
from tests.conftest import needs_namespaces
from tests.e2e.official_clients import NODE_CLIENTS

PAGE = Path(__file__).parents[2] / "docs" / "services" / "github.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.MULTILINE | re.DOTALL)
SUFFIX = {"sh": ".sh", "python": ".py", "js": ".mjs"}


def runnable_blocks() -> list[tuple[str, str]]:
    """(suffix, code) of each block the page runs inside `detour run`, in its order."""
    return [(SUFFIX[kind], code) for kind, code in BLOCK.findall(PAGE.read_text())
            if "inside `detour run`" in code]


@needs_namespaces
def test_the_github_pages_commands_run_in_order(live_stack, tmp_path):
    blocks = runnable_blocks()
    assert [suffix for suffix, _ in blocks] == [".sh", ".py", ".sh", ".mjs"]
    env = live_stack.env("github_default")
    with detour.Client(home=live_stack.state.home, stack=live_stack.info, backend="namespace",
                       node_modules=NODE_CLIENTS) as client:
        for n, (suffix, code) in enumerate(blocks):
            program = tmp_path / f"block{n}{suffix}"
            program.write_text(code)
            result = client.run(program, env=env)
            assert result.exit_code == 0, (n, result.stdout[-2000:], result.stderr[-2000:])
            if n == 2:
                assert result.stdout.splitlines()[-1] == "CLOSED"  # gh's view of the issue the merge closed
    with live_stack.store.open(env) as state:
        issues = {r["number"]: r for r in state.rows("github_issues", repository_id=101)}
        pulls = {r["number"]: r for r in state.rows("github_pulls", repository_id=101)}
    [filed] = [i for i in issues.values() if i["title"] == "Flaky test"]
    assert filed["state"] == "closed" and filed["state_reason"] == "completed"
    assert all(pull.get("merged_at") for pull in pulls.values())  # fix, docs/auth and #4
    assert issues[1]["state"] == "closed"  # #4's body says "Closes #1."
