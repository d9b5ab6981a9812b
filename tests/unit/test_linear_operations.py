"""The Linear operations AgentDiff's benchmark uses, on linear_default, through the GraphQL endpoint."""

import json
import pytest
from fastapi.testclient import TestClient

from detour.apps.server import create_app
from mock_services.store import EnvironmentStore

ENG = "ad608998-915c-4bad-bcd9-85ebfccccee8"


@pytest.fixture
def linear(state):
    client = TestClient(create_app(state))
    env = EnvironmentStore(state).create("linear_default").env_id

    def gql(query, **variables):
        body = client.post(f"/api/env/{env}/services/linear/graphql", headers={"Authorization": "lin_api_1"},
                           json={"query": query, "variables": variables}).json()
        return body
    gql.diff = lambda: EnvironmentStore(state).diff(env)
    gql.rows = lambda table: EnvironmentStore(state).open(env).__enter__().rows(table)
    return gql


def data(result):
    assert "errors" not in result, result["errors"]
    return result["data"]


def error(result):
    return result["errors"][0]["message"]


def states(linear, team=ENG):
    nodes = data(linear("query($f: WorkflowStateFilter) { workflowStates(filter: $f) { nodes { id name type } } }",
                        f={"team": {"id": {"eq": team}}}))["workflowStates"]["nodes"]
    return {s["name"]: s["id"] for s in nodes}


def test_issue_update_changes_only_what_is_given(linear):
    in_progress = states(linear)["In Progress"]
    q = "mutation($id: String!, $i: IssueUpdateInput!) { issueUpdate(id: $id, input: $i) { success issue { state { name } priorityLabel title } } }"
    issue = data(linear(q, id="ENG-1", i={"stateId": in_progress, "priority": 1}))["issueUpdate"]["issue"]
    assert issue["state"]["name"] == "In Progress" and issue["priorityLabel"] == "Urgent"
    [update] = linear.diff().updates
    changed = {k for k in update["after"] if update["after"][k] != update["before"].get(k)}
    assert changed == {"stateId", "priority", "priorityLabel", "updatedAt"}
    prod = data(linear('{ team(id: "PROD") { id } }'))["team"]["id"]
    other_team_state = data(linear(f'mutation {{ workflowStateCreate(input: {{teamId: "{prod}", name: "Doing", '
                                   f'type: "started", color: "#fff"}}) {{ workflowState {{ id }} }} }}'))
    other_team_state = other_team_state["workflowStateCreate"]["workflowState"]["id"]
    assert "another team" in error(linear(q, id="ENG-1", i={"stateId": other_team_state}))
    assert error(linear(q, id="ENG-404", i={"title": "x"})) == "Entity not found - Could not find referenced Issue."


def test_labels_create_update_and_attach(linear):
    made = data(linear('mutation { issueLabelCreate(input: {name: "regression", color: "#f00"}) { issueLabel { id name } } }'))
    label = made["issueLabelCreate"]["issueLabel"]["id"]
    assert "already exists" in error(linear('mutation { issueLabelCreate(input: {name: "regression"}) { success } }'))
    data(linear(f'mutation {{ issueLabelUpdate(id: "{label}", input: {{name: "regressions"}}) {{ success }} }}'))
    q = "mutation($id: String!, $i: IssueUpdateInput!) { issueUpdate(id: $id, input: $i) { issue { labels { nodes { name } } } } }"
    labels = data(linear(q, id="ENG-2", i={"labelIds": [label]}))["issueUpdate"]["issue"]["labels"]["nodes"]
    assert labels == [{"name": "regressions"}]
    links = [i for i in linear.diff().inserts if i["__table__"] == "issue_label_issue_association"]
    assert [link["issue_label_id"] for link in links] == [label]
    names = {n["name"] for n in data(linear("{ issueLabels { nodes { name } } }"))["issueLabels"]["nodes"]}
    assert "regressions" in names


def test_failed_mutations_leave_no_trace(linear):
    bad = 'mutation { issueCreate(input: {teamId: "%s", title: "x", labelIds: ["nope"]}) { success } }' % ENG
    assert error(linear(bad)) == "Entity not found - Could not find referenced IssueLabel."
    assert linear.diff().inserts == [] and linear.diff().updates == []


def test_comments_update_and_delete(linear):
    comment = data(linear('{ comments(filter: {issue: {number: {eq: 1}, team: {key: {eq: "ENG"}}}}) { nodes { id body } } }'))
    comment_id = comment["comments"]["nodes"][0]["id"]
    edited = data(linear(f'mutation {{ commentUpdate(id: "{comment_id}", input: {{body: "edited"}}) {{ comment {{ body editedAt }} }} }}'))
    assert edited["commentUpdate"]["comment"]["body"] == "edited" and edited["commentUpdate"]["comment"]["editedAt"]
    gone = data(linear(f'mutation {{ commentDelete(id: "{comment_id}") {{ success entityId }} }}'))["commentDelete"]
    assert gone == {"success": True, "entityId": comment_id}
    archived = [u for u in linear.diff().updates if u["__table__"] == "comments"]  # Linear soft-deletes it
    assert linear.diff().deletes == [] and [a["after"]["archivedAt"] is not None for a in archived] == [True]
    listed = data(linear('{ comments(filter: {issue: {number: {eq: 1}, team: {key: {eq: "ENG"}}}}) { nodes { id } } }'))
    assert comment_id not in [n["id"] for n in listed["comments"]["nodes"]]
    assert data(linear(f'{{ comment(id: "{comment_id}") {{ archivedAt }} }}'))["comment"]["archivedAt"]
    assert error(linear(f'mutation {{ commentDelete(id: "{comment_id}") {{ success }} }}')) == "Entity not found - Could not find referenced Comment."


def test_workflow_states_create_and_archive(linear):
    made = data(linear(f'mutation {{ workflowStateCreate(input: {{teamId: "{ENG}", name: "QA", type: "started", color: "#0f0"}}) {{ workflowState {{ id position }} }} }}'))
    qa = made["workflowStateCreate"]["workflowState"]["id"]
    assert "already exists" in error(linear(f'mutation {{ workflowStateCreate(input: {{teamId: "{ENG}", name: "QA", type: "started", color: "#0f0"}}) {{ success }} }}'))
    assert "type must be one of" in error(linear(f'mutation {{ workflowStateCreate(input: {{teamId: "{ENG}", name: "X", type: "weird", color: "#0f0"}}) {{ success }} }}'))
    archived = data(linear(f'mutation {{ workflowStateArchive(id: "{qa}") {{ success entity {{ archivedAt }} }} }}'))
    assert archived["workflowStateArchive"]["entity"]["archivedAt"]
    assert "QA" not in states(linear)
    in_use = states(linear)["Backlog"]
    assert "still has issues" in error(linear(f'mutation {{ workflowStateArchive(id: "{in_use}") {{ success }} }}'))


def test_team_create_and_membership(linear):
    team = data(linear('mutation { teamCreate(input: {name: "Design"}) { team { id key states { nodes { name } } members { nodes { name } } } } }'))
    team = team["teamCreate"]["team"]
    assert team["key"] == "DES" and {s["name"] for s in team["states"]["nodes"]} >= {"Backlog", "Done"}
    assert [m["name"] for m in team["members"]["nodes"]] == ["AI Agent"]
    assert "already in use" in error(linear('mutation { teamCreate(input: {name: "Dup", key: "DES"}) { success } }'))
    users = data(linear("{ users { nodes { id name } } }"))["users"]["nodes"]
    other = next(u["id"] for u in users if u["name"] != "AI Agent")
    joined = data(linear(f'mutation {{ teamMembershipCreate(input: {{teamId: "{team["id"]}", userId: "{other}"}}) {{ teamMembership {{ user {{ id }} team {{ key }} }} }} }}'))
    assert joined["teamMembershipCreate"]["teamMembership"] == {"user": {"id": other}, "team": {"key": "DES"}}
    assert "already a member" in error(linear(f'mutation {{ teamMembershipCreate(input: {{teamId: "{team["id"]}", userId: "{other}"}}) {{ success }} }}'))


def test_issue_relations(linear):
    q = 'mutation { issueRelationCreate(input: {issueId: "ENG-1", relatedIssueId: "ENG-2", type: blocks}) { issueRelation { id type relatedIssue { identifier } } } }'
    relation = data(linear(q))["issueRelationCreate"]["issueRelation"]
    assert relation["type"] == "blocks" and relation["relatedIssue"]["identifier"] == "ENG-2"
    assert "already exists" in error(linear(q))
    listed = data(linear('{ issue(id: "ENG-1") { relations { nodes { id } } } }'))["issue"]["relations"]["nodes"]
    assert listed == [{"id": relation["id"]}]
    assert data(linear(f'mutation {{ issueRelationDelete(id: "{relation["id"]}") {{ success }} }}'))["issueRelationDelete"]["success"]
    assert [r["archivedAt"] is not None for r in linear.diff().inserts] == [True]  # created, then soft-deleted
    assert data(linear(q))["issueRelationCreate"]["issueRelation"]["id"] != relation["id"]  # free to make again


def test_a_team_created_without_a_key_gets_a_unique_one(linear):
    """As on Linear: the key comes from the name, and a taken one does not fail the create."""
    keys = [data(linear(f'mutation {{ teamCreate(input: {{name: "{name}"}}) {{ team {{ key }} }} }}'))
            ["teamCreate"]["team"]["key"] for name in ("Design", "Designers", "Des Moines")]
    assert keys == ["DES", "DES2", "DES3"]


def test_root_singletons_and_lists_answer_data_and_lookups_stay_not_found(linear):
    answer = data(linear("{ userSettings { id } templates { id } availableUsers { users { id } } }"))
    assert answer["templates"] == [] and answer["userSettings"] == {"id": ""}
    assert "Entity not found" in error(linear('{ document(id: "nope") { id } }'))


def test_a_comments_body_data_follows_its_body(linear):
    made = data(linear('mutation { commentCreate(input: {issueId: "ENG-1", body: "first"}) { comment { id bodyData } } }'))
    comment = made["commentCreate"]["comment"]
    assert json.loads(comment["bodyData"])["content"][0]["content"][0]["text"] == "first"
    linear(f'mutation {{ commentUpdate(id: "{comment["id"]}", input: {{body: "second"}}) {{ success }} }}')
    read = data(linear(f'{{ comment(id: "{comment["id"]}") {{ bodyData }} }}'))["comment"]["bodyData"]
    assert json.loads(read)["content"][0]["content"][0]["text"] == "second"
    row = next(r for r in linear.diff().inserts if r["__table__"] == "comments")
    assert "bodyData" not in row  # one column, one fact
