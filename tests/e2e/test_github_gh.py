"""Debian's `gh`, unmodified, in a sandbox on the namespace backend, through the proxy: `gh api`
(REST), `gh issue create` and `gh issue list` (GraphQL), `gh pr create` from a branch and
`gh pr merge` (GraphQL mutations that are the REST operations), with the token the
environment issued (GH_TOKEN); the diff shows the issue, the pull request and the merge."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ISOLATING

AGENT = r'''
set -e
export GH_CONFIG_DIR="$(mktemp -d)" GH_NO_UPDATE_NOTIFIER=1 GH_PROMPT_DISABLED=1 NO_COLOR=1
gh api repos/acme/api --jq .full_name
gh issue create -R acme/api --title "Filed by gh" --body "from the CLI"
gh issue list -R acme/api --label bug --json number,title --jq '.[].title'
gh pr create -R acme/api --head docs/auth --base main --title "Auth docs" --body "please review"
gh pr merge 6 -R acme/api --squash
gh pr view 6 -R acme/api --json state --jq .state
'''


@pytest.mark.parametrize("backend", ISOLATING)
def test_gh_through_the_proxy(live_stack, backend):
    env = live_stack.env("github_default")
    result = live_stack.run(env, AGENT, ".sh", backend=backend)
    assert result.exit_code == 0, result.stderr + result.stdout
    lines = result.stdout.splitlines()
    assert lines[0] == "acme/api"
    assert lines[1] == "https://github.com/acme/api/issues/5"
    assert lines[2] == "Orders route returns nothing"
    assert lines[3] == "https://github.com/acme/api/pull/6"
    assert lines[-1] == "MERGED"
    inserted = sorted(r["__table__"] for r in result.diff.inserts)
    assert inserted == ["github_commits", "github_issues", "github_issues", "github_pulls"]
    assert json.dumps([u["after"]["ref"] for u in result.diff.updates if u["__table__"] == "github_refs"]) == \
        '["refs/heads/main"]'
