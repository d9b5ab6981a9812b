"""Which GraphQL operation of the Linear replica backs each tool of Linear's hosted MCP server
(`https://mcp.linear.app/mcp`). The tools (spec/mcp_tools.json) take teams, people, states,
labels and projects by name as that server does; a lookup of the replica's own makes each the
id the operation wants. A tool not named here answers that the replica does not back it."""

from __future__ import annotations

import json

from mock_services.mcp.operations import Arguments, GraphQL, Lookup, Operation

ISSUE = ("id identifier title description priority url dueDate createdAt updatedAt state { name } "
         "assignee { id name } team { key name } labels { nodes { name } } project { name } parent { identifier }")
TEAM = "id key name description"
USER = "id name displayName email active"
PROJECT = "id name description state url"


def _by(entity: str, *fields: str, where: str = "") -> str:
    """A lookup's query: the `entity` rows whose id, or one of `fields` ignoring case, is $value."""
    matches = ", ".join(["{id: {eq: $id}}", *(f"{{{f}: {{eqIgnoreCase: $value}}}}" for f in fields)])
    return (f"query($id: ID!, $value: String!{where and ', $teamId: ID'}) "
            f"{{ {entity}(filter: {{or: [{matches}]{where}}}) {{ nodes {{ id }} }} }}")


TEAMS = Lookup("team", "teamId", _by("teams", "key", "name"), "teams.nodes")
PEOPLE = Lookup("assignee", "assigneeId", _by("users", "name", "email", "displayName"), "users.nodes")
PROJECTS = Lookup("project", "projectId", _by("projects", "name"), "projects.nodes")
LABELS = Lookup("labels", "labelIds", _by("issueLabels", "name"), "issueLabels.nodes")
STATES = Lookup("state", "stateId", _by("workflowStates", "name", where=", team: {id: {eq: $teamId}}"),
                "workflowStates.nodes")


def _issue_filter(arguments: Arguments) -> Arguments:
    """list_issues' arguments as Linear's IssueFilter (the lookups have made them ids)."""
    wanted = {"teamId": ("team", "id"), "assigneeId": ("assignee", "id"), "projectId": ("project", "id"),
              "parentId": ("parent", "id")}
    found: dict = {relation: {field: {"eq": arguments.pop(key)}} for key, (relation, field) in wanted.items()
                   if key in arguments}
    if "state" in arguments:
        found["state"] = {"name": {"eqIgnoreCase": arguments.pop("state")}}
    if "label" in arguments:
        found["labels"] = {"some": {"name": {"eqIgnoreCase": arguments.pop("label")}}}
    if "query" in arguments:
        text = arguments.pop("query")
        found["or"] = [{"title": {"containsIgnoreCase": text}}, {"description": {"containsIgnoreCase": text}}]
    return {"first": arguments.get("limit", 50), "filter": found}


def _text_filter(field: str, **narrowing: dict):
    """A list's arguments as its filter: `query` matched in `field`, and each looked-up id
    `narrowing` names as the filter it gives ("$" stands for the id)."""
    def prepare(arguments: Arguments) -> Arguments:
        found: dict = {field: {"containsIgnoreCase": arguments["query"]}} if arguments.get("query") else {}
        for key, shape in narrowing.items():
            if key in arguments:
                found.update(json.loads(json.dumps(shape).replace('"$"', json.dumps(arguments[key]))))
        return {"first": arguments.get("limit", 50), "filter": found}
    return prepare


def _listing(entity: str, fields: str, kind: str) -> str:
    return f"query($first: Int, $filter: {kind}) {{ {entity}(first: $first, filter: $filter) {{ nodes {{ {fields} }} }} }}"


OPERATIONS: dict[str, Operation] = {
    "list_issues": GraphQL(_listing("issues", ISSUE, "IssueFilter"), "issues.nodes",
                           lookups=(TEAMS, PEOPLE, PROJECTS), prepare=_issue_filter),
    "get_issue": GraphQL(f"query($id: String!) {{ issue(id: $id) {{ {ISSUE} }} }}", "issue"),
    "create_issue": GraphQL(f"mutation($input: IssueCreateInput!) {{ issueCreate(input: $input) {{ issue {{ {ISSUE} }} }} }}",
                            "issueCreate.issue", lookups=(TEAMS, PEOPLE, STATES, LABELS, PROJECTS), wrap=True),
    "update_issue": GraphQL(f"mutation($id: String!, $input: IssueUpdateInput!) {{ issueUpdate(id: $id, input: $input) "
                            f"{{ issue {{ {ISSUE} }} }} }}", "issueUpdate.issue",
                            lookups=(PEOPLE, LABELS, PROJECTS,
                                     Lookup("state", "stateId", _by("workflowStates", "name"), "workflowStates.nodes")),
                            wrap=True),
    "list_comments": GraphQL("query($issueId: String!) { issue(id: $issueId) { comments { nodes { id body createdAt "
                             "user { name } } } } }", "issue.comments.nodes"),
    "create_comment": GraphQL("mutation($input: CommentCreateInput!) { commentCreate(input: $input) { comment { id body "
                              "createdAt user { name } issue { identifier } } } }", "commentCreate.comment", wrap=True,
                              outside=()),
    "list_teams": GraphQL(_listing("teams", TEAM, "TeamFilter"), "teams.nodes", prepare=_text_filter("name")),
    "get_team": GraphQL(f"query($teamId: String!) {{ team(id: $teamId) {{ {TEAM} }} }}", "team",
                        rename={"query": "team"}, lookups=(TEAMS,)),
    "list_users": GraphQL(_listing("users", USER, "UserFilter"), "users.nodes", prepare=_text_filter("name")),
    "get_user": GraphQL(f"query($id: String!) {{ user(id: $id) {{ {USER} }} }}", "user", lookups=(
        Lookup("query", "id", _by("users", "name", "email", "displayName"), "users.nodes"),)),
    "list_projects": GraphQL(_listing("projects", PROJECT, "ProjectFilter"), "projects.nodes", lookups=(TEAMS,),
                             prepare=_text_filter("name", teamId={"accessibleTeams": {"some": {"id": {"eq": "$"}}}})),
    "get_project": GraphQL(f"query($id: String!) {{ project(id: $id) {{ {PROJECT} }} }}", "project", lookups=(
        Lookup("query", "id", _by("projects", "name"), "projects.nodes"),)),
    "list_issue_statuses": GraphQL("query($teamId: String!) { team(id: $teamId) { states { nodes { id name type "
                                   "position } } } }", "team.states.nodes", lookups=(TEAMS,)),
    "list_issue_labels": GraphQL(_listing("issueLabels", "id name color", "IssueLabelFilter"), "issueLabels.nodes",
                                 rename={"name": "query"}, lookups=(TEAMS,),
                                 prepare=_text_filter("name", teamId={"or": [{"team": {"id": {"eq": "$"}}},
                                                                             {"team": {"null": True}}]})),
}
