import pytest
from fastapi.testclient import TestClient

from detour.apps.server import create_app
from mock_services.store import EnvironmentStore

AUTH = {"Authorization": "lin_api_test"}
ENG = "ad608998-915c-4bad-bcd9-85ebfccccee8"


@pytest.fixture
def client(state) -> TestClient:
    return TestClient(create_app(state))


@pytest.fixture
def env(state) -> str:
    return EnvironmentStore(state).create("linear_default").env_id


def gql(client, env, query, variables=None, auth=AUTH):
    return client.post(f"/api/env/{env}/services/linear/graphql",
                       json={"query": query, "variables": variables or {}}, headers=auth)


def test_viewer_and_teams(client, env):
    data = gql(client, env, "{ viewer { name isMe } teams { nodes { key name } } }").json()["data"]
    assert data["viewer"] == {"name": "AI Agent", "isMe": True}
    assert {t["key"] for t in data["teams"]["nodes"]} == {"ENG", "PROD"}


def test_issues_filter_and_relay_pagination(client, env):
    q = """query($after: String) { issues(first: 2, after: $after, filter: {team: {key: {eq: "ENG"}}}) {
             nodes { identifier team { key } } pageInfo { hasNextPage endCursor } } }"""
    seen, after = [], None
    while True:
        page = gql(client, env, q, {"after": after}).json()["data"]["issues"]
        seen += [n["identifier"] for n in page["nodes"]]
        assert all(n["team"]["key"] == "ENG" for n in page["nodes"])
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert len(seen) == len(set(seen)) >= 3


def test_issue_by_identifier_or_id(client, env):
    by_key = gql(client, env, '{ issue(id: "ENG-1") { id title comments { nodes { body } } } }').json()["data"]["issue"]
    by_id = gql(client, env, "query($id: String!) { issue(id: $id) { identifier } }", {"id": by_key["id"]}).json()
    assert by_id["data"]["issue"]["identifier"] == "ENG-1"
    assert by_key["comments"]["nodes"][0]["body"].startswith("This is a seeded comment")


def test_issue_create_numbers_per_team_and_is_in_the_diff(client, env, state):
    m = """mutation($input: IssueCreateInput!) { issueCreate(input: $input) {
             success lastSyncId issue { identifier title priority priorityLabel state { name } creator { name } } } }"""
    out = gql(client, env, m, {"input": {"teamId": ENG, "title": "Fix login bug", "priority": 2}}).json()
    payload = out["data"]["issueCreate"]
    assert payload["success"] and isinstance(payload["lastSyncId"], float)
    issue = payload["issue"]
    assert issue["identifier"].startswith("ENG-")
    assert (issue["priority"], issue["priorityLabel"], issue["state"]["name"]) == (2.0, "High", "Backlog")
    assert issue["creator"]["name"] == "AI Agent"
    diff = EnvironmentStore(state).diff(env)
    [insert] = [i for i in diff.inserts if i["__table__"] == "issues"]
    assert insert["title"] == "Fix login bug" and insert["priority"] == 2.0
    assert {i["__table__"] for i in diff.inserts} == {"issues", "issue_history", "issue_subscribers"}
    assert diff.updates == []  # the team's issueCount is counted when read, never written


def test_comment_create(client, env, state):
    m = 'mutation { commentCreate(input: {issueId: "ENG-1", body: "on it"}) { success comment { body user { name } issue { identifier } } } }'
    comment = gql(client, env, m).json()["data"]["commentCreate"]["comment"]
    assert comment == {"body": "on it", "user": {"name": "AI Agent"}, "issue": {"identifier": "ENG-1"}}
    assert EnvironmentStore(state).diff(env).inserts[0]["__table__"] == "comments"


@pytest.mark.parametrize("query, variables, status, message", [
    ("{ issue(id: ", None, 400, "Syntax Error"),
    ("{ nosuchfield }", None, 400, "Cannot query field"),
    ('{ issue(id: "ENG-999") { id } }', None, 200, "Entity not found - Could not find referenced Issue."),
    ("mutation($i: IssueCreateInput!) { issueCreate(input: $i) { success } }",
     {"i": {"teamId": "nope", "title": "x"}}, 200, "Entity not found - Could not find referenced Team."),
    ("mutation($i: IssueCreateInput!) { issueCreate(input: $i) { success } }",
     {"i": {"teamId": ENG, "title": " "}}, 200, "Argument Validation Error"),
    ("{ issues(first: 0) { nodes { id } } }", None, 200, "must be positive"),
])
def test_errors_are_graphql_errors(client, env, state, query, variables, status, message):
    r = gql(client, env, query, variables)
    assert r.status_code == status
    assert message in r.json()["errors"][0]["message"]
    assert EnvironmentStore(state).diff(env).inserts == []


def test_auth_json_and_environment_errors(client, env):
    r = gql(client, env, "{ viewer { id } }", auth={})
    assert r.status_code == 400 and r.json()["errors"][0]["extensions"]["type"] == "authentication error"
    r = client.post(f"/api/env/{env}/services/linear/graphql", content=b"{oops", headers=AUTH)
    assert r.status_code == 400 and "not valid JSON" in r.json()["errors"][0]["message"]
    r = gql(client, "env-missing", "{ viewer { id } }")
    assert r.status_code == 404


def test_relations_through_link_tables(client, env, state):
    with EnvironmentStore(state).open(env) as s:
        links = s.rows("issue_label_issue_association")
        expected = {link["issue_id"]: s.first("issue_labels", id=link["issue_label_id"])["name"] for link in links}
    data = gql(client, env, "{ issues { nodes { id labels { nodes { name } } } } "
                            "teams { nodes { key members { nodes { name } } } } viewer { teams { nodes { key } } } }").json()["data"]
    labelled = {i["id"]: [label["name"] for label in i["labels"]["nodes"]] for i in data["issues"]["nodes"]
                if i["labels"]["nodes"]}
    assert labelled == {issue: [name] for issue, name in expected.items()}
    assert {t["key"] for t in data["viewer"]["teams"]["nodes"]} <= {"ENG", "PROD"}
    assert any(t["members"]["nodes"] for t in data["teams"]["nodes"])


def test_bad_variables_are_reported_not_masked(client, env):
    r = gql(client, env, "query($f: TeamFilter) { teams(filter: $f) { nodes { id } } }", {"f": {"colour": {"eq": "x"}}})
    assert "unknown field 'colour'" in r.json()["errors"][0]["message"]
