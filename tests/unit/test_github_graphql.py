"""GitHub's GraphQL API on the replica: its public schema (regenerated from
@octokit/graphql-schema where installed), the state-backed queries over the same rows the REST
API reads, mutations that are the REST operations themselves, GitHub's error shape."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from mock_services.app import create_replica_app
from mock_services.github.graphql.endpoint import SCHEMA_PATH
from mock_services.github.graphql.generate import generate
from mock_services.store import EnvironmentStore

INSTALLED = Path(__file__).parents[1] / "node_clients" / "node_modules" / "@octokit" / "graphql-schema" / \
    "schema.graphql"


@pytest.fixture
def graphql(state):
    store = EnvironmentStore(state)
    env = store.create("github_default").env_id
    token = store.credentials(env).tokens["1"]
    client = TestClient(create_replica_app(state))

    def ask(query: str, variables: dict | None = None, auth: bool = True) -> tuple[int, dict]:
        answer = client.post(f"/api/env/{env}/services/github/graphql", json={"query": query, "variables": variables},
                             headers={"Authorization": f"bearer {token}"} if auth else {})
        return answer.status_code, answer.json()
    return ask, store, env


def test_the_schema_is_githubs_without_its_prose():
    assert SCHEMA_PATH.read_text() == generate(INSTALLED.read_text())


def test_queries_read_the_same_state_as_rest(graphql):
    ask, _, _ = graphql
    status, answer = ask('{ viewer { login } repository(owner: "acme", name: "api") { nameWithOwner '
                         'defaultBranchRef { name } issues(states: OPEN, first: 10) { totalCount nodes { number '
                         'labels(first: 5) { nodes { name } } } } pullRequest(number: 4) { headRefName mergeable '
                         'reviews(first: 5) { nodes { state author { login } } } } } }')
    assert status == 200 and "errors" not in answer
    repo = answer["data"]["repository"]
    assert answer["data"]["viewer"]["login"] == "ai-agent" and repo["defaultBranchRef"]["name"] == "main"
    assert [(n["number"], [x["name"] for x in n["labels"]["nodes"]]) for n in repo["issues"]["nodes"]] == [
        (1, ["enhancement"]), (2, ["bug"])]
    assert repo["pullRequest"] == {"headRefName": "feature/rate-limits", "mergeable": "MERGEABLE",
                                   "reviews": {"nodes": [{"state": "APPROVED", "author": {"login": "john-doe"}}]}}
    _, found = ask('{ search(query: "repo:acme/api is:pr", type: ISSUE, first: 5) { issueCount } }')
    assert found["data"]["search"]["issueCount"] == 1


def test_mutations_are_the_rest_operations(graphql):
    ask, store, env = graphql
    _, made = ask('mutation($r: ID!) { createIssue(input: {repositoryId: $r, title: "Over GraphQL"}) '
                  '{ issue { id number } } }', {"r": "R_101"})
    issue = made["data"]["createIssue"]["issue"]
    _, commented = ask('mutation($s: ID!) { addComment(input: {subjectId: $s, body: "noted"}) '
                       '{ subject { ... on Issue { number } } } }', {"s": issue["id"]})
    assert commented["data"]["addComment"]["subject"]["number"] == issue["number"]
    _, closed = ask('mutation($i: ID!) { closeIssue(input: {issueId: $i, stateReason: NOT_PLANNED}) '
                    '{ issue { state stateReason } } }', {"i": issue["id"]})
    assert closed["data"]["closeIssue"]["issue"] == {"state": "CLOSED", "stateReason": "NOT_PLANNED"}
    _, merged = ask('mutation { mergePullRequest(input: {pullRequestId: "PR_7001", mergeMethod: MERGE}) '
                    '{ pullRequest { state mergeCommit { oid } } } }')
    oid = merged["data"]["mergePullRequest"]["pullRequest"]["mergeCommit"]["oid"]
    diff = store.diff(env)
    assert [u["after"]["sha"] for u in diff.updates if u["__table__"] == "github_refs"] == [oid]
    assert sorted(r["__table__"] for r in diff.inserts) == ["github_commits", "github_issue_comments",
                                                            "github_issues"]


def test_githubs_errors(graphql):
    ask, store, env = graphql
    assert ask("{ viewer { login } }", auth=False)[0] == 401
    _, missing = ask('{ repository(owner: "acme", name: "nope") { id } }')
    assert missing["errors"][0]["type"] == "NOT_FOUND"
    _, refused = ask('mutation { createPullRequest(input: {repositoryId: "R_101", baseRefName: "main", '
                     'headRefName: "main", title: "x"}) { pullRequest { number } } }')
    assert refused["errors"][0]["type"] == "UNPROCESSABLE" and "No commits between" in refused["errors"][0]["message"]
    _, unmodeled = ask('mutation { updateRepository(input: {repositoryId: "R_101", description: "x"}) '
                       '{ clientMutationId } }')
    assert "not modeled" in unmodeled["errors"][0]["message"]
    assert store.diff(env).inserts == []
