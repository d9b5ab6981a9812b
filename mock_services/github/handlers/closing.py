"""GitHub's closing keywords: a pull request merged into its repository's default branch closes
the issues that its body and its commits' messages name with one of the keywords GitHub
documents (close, closes, closed, fix, fixes, fixed, resolve, resolves, resolved; any case, an
optional colon), as `#N` or `owner/repo#N`, whatever the merge method. Which pull requests
close an issue is read from the same texts when asked (GraphQL's
`closedByPullRequestsReferences`), never stored."""

from __future__ import annotations

import re
from collections.abc import Iterable

from mock_services.github import access
from mock_services.github.handlers import issues
from mock_services.github.handlers.common import git
from mock_services.github.handlers.pulls import _commits
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import EnvState, Row

KEYWORD = re.compile(r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?):?\s+(?:([\w.-]+)/([\w.-]+))?#(\d+)\b",
                     re.IGNORECASE)


def references(texts: Iterable[str], owner: str, name: str) -> list[tuple[str, str, int]]:
    """(owner, repository, number) of each issue the texts close, in order, once each; a bare
    `#N` is in the repository `owner/name`."""
    found: list[tuple[str, str, int]] = []
    for text in texts:
        for match in KEYWORD.finditer(text):
            named = (match[1] or owner).lower(), (match[2] or name).lower(), int(match[3])
            if named not in found:
                found.append(named)
    return found


def texts_of(call: Call, repository: Row, pull: Row) -> list[str]:
    """What GitHub reads keywords in: the pull request's body and its commits' messages."""
    body = issues.issue_row(call, repository, pull["number"]).get("body") or ""
    return [body, *(c.message.decode("utf-8", "replace") for c in _commits(git(call, repository), pull))]


def full_name(state: EnvState, repository: Row) -> tuple[str, str]:
    owner = state.first("github_users", id=repository["owner_id"])
    return (owner["login"] if owner else ""), repository["name"]


def close_referenced(call: Call, repository: Row, pull: Row, closer: Row, stamp: str) -> None:
    """On a merge into the default branch: each open issue the pull request names closes, in a
    repository the merger may write to, as completed, by the merger."""
    if pull["base_ref"] != repository["default_branch"]:
        return
    for owner, name, number in references(texts_of(call, repository, pull), *full_name(call.state, repository)):
        try:
            target = access.repository(call.state, call.user, owner, name, "triage")
        except RestError:  # GitHub skips an issue the merger may not close
            continue
        issue = call.state.first(issues.ISSUES, repository_id=target["id"], number=number)
        if issue and not issue.get("pull_request") and issue["state"] == "open":
            call.state.update(issues.ISSUES, {**issue, "state": "closed", "state_reason": "completed",
                                              "closed_at": stamp, "closed_by_id": closer["id"], "updated_at": stamp})


def closing_pulls(call: Call, repository: Row, issue: Row, include_closed: bool) -> list[tuple[Row, Row]]:
    """(repository, pull request) of each pull request that names the issue with a keyword:
    open and merged ones, and closed unmerged ones where asked."""
    wanted = (*[part.lower() for part in full_name(call.state, repository)], issue["number"])
    found = []
    for pull in call.state.rows("github_pulls"):
        home = call.state.first("github_repositories", id=pull["repository_id"])
        row = call.state.first(issues.ISSUES, repository_id=pull["repository_id"], number=pull["number"])
        if home is None or row is None or not access.role_on(call.state, call.user, home):
            continue
        if row["state"] == "closed" and not pull.get("merged_at") and not include_closed:
            continue
        if wanted in references(texts_of(call, home, pull), *full_name(call.state, home)):
            found.append((home, pull))
    return found
