"""GitHub's closing keywords, through the replica's REST and GraphQL faces on `github_default`:
a pull request merged into the default branch closes the issues its body and its commits'
messages name, by each merge method, and GraphQL shows the link on the issue (and reads an
issue's state as gh asks for it)."""

from __future__ import annotations

import pytest

from mock_services.github.handlers.closing import references
from tests.unit.test_github import call, github  # noqa: F401 (the fixture)

KEYWORDS = ["close", "closes", "closed", "fix", "fixes", "fixed", "resolve", "resolves", "resolved"]


@pytest.mark.parametrize("keyword", KEYWORDS + [k.upper() for k in KEYWORDS] + ["Fixes:"])
def test_every_keyword_github_documents_names_an_issue(keyword):
    text = f"{keyword} #12, and {keyword.title()} octo-org/Octo-Repo#100; prefix#7 and fixing #8 are not"
    assert references([text], "acme", "api") == [("acme", "api", 12), ("octo-org", "octo-repo", 100)]


def issue_state(github, repo: str, number: int) -> tuple[str, str | None]:
    found = call(github, "GET", f"repos/acme/{repo}/issues/{number}").json()
    return found["state"], (found["closed_by"] or {}).get("login")


def branch_with_commit(github, name: str, message: str) -> None:
    main = call(github, "GET", "repos/acme/api/git/ref/heads/main").json()["object"]["sha"]
    call(github, "POST", "repos/acme/api/git/refs", json={"ref": f"refs/heads/{name}", "sha": main})
    written = call(github, "PUT", f"repos/acme/api/contents/{name}.txt", json={
        "message": message, "content": "aGk=", "branch": name})
    assert written.status_code == 201, written.text


def test_merge_squash_and_rebase_close_the_issues_they_name(github):
    client, *_ = github
    branch_with_commit(github, "tidy", "Tidy up\n\nFIXES: acme/web#1")
    tidy = call(github, "POST", "repos/acme/api/pulls", json={"title": "Tidy", "head": "tidy", "base": "main",
                                                                "body": "no keyword here"}).json()["number"]
    assert call(github, "PUT", f"repos/acme/api/pulls/{tidy}/merge", json={"merge_method": "merge"}).json()["merged"]
    assert issue_state(github, "web", 1) == ("closed", "ai-agent")  # a commit's message, another repository
    docs = call(github, "POST", "repos/acme/api/pulls", json={"title": "Docs", "head": "docs/auth", "base": "main",
                                                                "body": "Resolves #2"}).json()["number"]
    call(github, "PUT", f"repos/acme/api/pulls/{docs}/merge", json={"merge_method": "squash"})
    assert issue_state(github, "api", 2) == ("closed", "ai-agent")  # the body, squashed
    assert issue_state(github, "api", 1) == ("open", None)
    call(github, "PUT", "repos/acme/api/pulls/4/merge", json={"merge_method": "rebase"})  # its body: "Closes #1."
    assert issue_state(github, "api", 1) == ("closed", "ai-agent")


def test_a_merge_into_another_branch_closes_nothing_and_graphql_shows_the_link(github):
    client, store, env, tokens = github
    branch_with_commit(github, "side", "Side work, fixes #2")
    opened = call(github, "POST", "repos/acme/api/pulls", json={"title": "Side", "head": "side",
                                                                  "base": "docs/auth"}).json()["number"]
    call(github, "PUT", f"repos/acme/api/pulls/{opened}/merge", json={})
    assert issue_state(github, "api", 2) == ("open", None)
    query = "{ repository(owner: \"acme\", name: \"api\") { issue(number: 1) { state closedByPullRequestsReferences" \
            "(first: 5) { totalCount nodes { number state } } } } }"
    asked = client.post(f"/api/env/{env}/services/github/graphql", json={"query": query},
                        headers={"Authorization": f"bearer {tokens['1']}"}).json()
    assert asked["data"]["repository"]["issue"]["closedByPullRequestsReferences"] == {
        "totalCount": 1, "nodes": [{"number": 4, "state": "OPEN"}]}
    call(github, "PUT", "repos/acme/api/pulls/4/merge", json={})
    asked = client.post(f"/api/env/{env}/services/github/graphql", json={"query": query},
                        headers={"Authorization": f"bearer {tokens['1']}"}).json()
    assert asked["data"]["repository"]["issue"] == {"state": "CLOSED", "closedByPullRequestsReferences": {
        "totalCount": 1, "nodes": [{"number": 4, "state": "MERGED"}]}}
    union = "{ repository(owner: \"acme\", name: \"api\") { issueOrPullRequest(number: 1) { " \
            "... on Issue { state } ... on PullRequest { state } } } }"  # as `gh issue view` asks, and GitHub takes
    asked = client.post(f"/api/env/{env}/services/github/graphql", json={"query": union},
                        headers={"Authorization": f"bearer {tokens['1']}"}).json()
    assert asked == {"data": {"repository": {"issueOrPullRequest": {"state": "CLOSED"}}}}
