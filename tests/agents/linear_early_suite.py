"""A scripted agent for AgentDiff's early Linear suite: what a careful agent would do for each
prompt, over Linear's GraphQL API with httpx, unaware of detour. `--lazy` changes nothing."""

import os
import sys

import httpx

# A generous timeout: the first call may wait for the replica to build Linear's schema on a busy machine.
linear = httpx.Client(base_url="https://api.linear.app", headers={"Authorization": "lin_api_agent"}, timeout=60)


def gql(query, **variables):
    body = linear.post("/graphql", json={"query": query, "variables": variables}).json()
    if body.get("errors"):
        raise SystemExit(f"Linear said: {body['errors'][0]['message']}")
    return body["data"]


def team(name):
    return next(t["id"] for t in gql("{ teams { nodes { id name } } }")["teams"]["nodes"] if t["name"] == name)


def user(name):
    return next(u["id"] for u in gql("{ users { nodes { id name } } }")["users"]["nodes"] if u["name"] == name)


def state(issue, name):
    states = gql("query($id: String!) { issue(id: $id) { team { states { nodes { id name type } } } } }",
                 id=issue)["issue"]["team"]["states"]["nodes"]
    return next(s["id"] for s in states if s["name"] == name or s["type"] == name)


def create(**fields):
    return gql("mutation($i: IssueCreateInput!) { issueCreate(input: $i) { issue { identifier } } }", i=fields)


def update(issue, **fields):
    return gql("mutation($id: String!, $i: IssueUpdateInput!) { issueUpdate(id: $id, input: $i) { success } }",
               id=issue, i=fields)


def description(issue):
    return gql("query($id: String!) { issue(id: $id) { description } }", id=issue)["issue"]["description"] or ""


TASKS = {
    "test_1": lambda: create(teamId=team("Engineering"), title="Fix login bug", priority=2),
    "test_2": lambda: update("ENG-1", stateId=state("ENG-1", "In Progress")),
    "test_3": lambda: update("ENG-1", assigneeId=user("John Doe")),
    "test_4": lambda: gql("mutation($i: CommentCreateInput!) { commentCreate(input: $i) { success } }",
                          i={"issueId": "ENG-1", "body": "I am working on this now"}),
    "test_5": lambda: gql('mutation { teamCreate(input: {name: "Design"}) { success } }'),
    "test_6": lambda: update("ENG-1", priority=1),
    "test_7": lambda: create(teamId=team("Engineering"), title="Improve performance", assigneeId=user("John Doe"),
                             description="Optimize database queries"),
    "test_8": lambda: update("ENG-1", description=(description("ENG-1") + "\n\nRoot cause: session timeout issue").strip()),
    "test_9": lambda: [create(teamId=team("Engineering"), title=t)
                       for t in ("Update documentation", "Refactor API endpoints", "Add unit tests")],
    "test_10": lambda: update("ENG-1", stateId=state("ENG-1", "completed")),
}

if "--lazy" in sys.argv:
    gql("{ viewer { id } }")  # looks around, changes nothing
else:
    TASKS[os.environ["DETOUR_TEST_ID"]]()
