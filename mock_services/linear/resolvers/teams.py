"""Teams and their workflow states and members."""

from __future__ import annotations

from ariadne import ObjectType

from mock_services.linear.context import ctx
from mock_services.linear.pagination import connection
from mock_services.linear.resolvers.roots import query

team = ObjectType("Team")
workflow_state = ObjectType("WorkflowState")


@query.field("teams")
def resolve_teams(_, info, filter=None, **page):
    c = ctx(info)
    return connection(c.filters.apply("teams", c.state.rows("teams"), filter), **page)


@query.field("team")
def resolve_team(_, info, id):
    c = ctx(info)
    found = c.state.first("teams", id=id) or c.state.first("teams", key=id)
    return found or c.get("teams", "Team", None)


@team.field("private")
def resolve_private(row, _info):
    return bool(row.get("private"))


@team.field("issueCount")
def resolve_issue_count(row, _info):
    return int(row.get("issueCount") or 0)


@team.field("organization")
def resolve_team_organization(row, info):
    return ctx(info).maybe("organizations", row.get("organizationId")) or ctx(info).state.first("organizations")


@team.field("states")
def resolve_states(row, info, filter=None, **page):
    c = ctx(info)
    return connection(c.filters.apply("workflow_states", c.state.rows("workflow_states", teamId=row["id"]),
                                      filter), **page)


@team.field("issues")
def resolve_team_issues(row, info, filter=None, **page):
    c = ctx(info)
    return connection(c.filters.apply("issues", c.state.rows("issues", teamId=row["id"]), filter), **page)


@team.field("members")
def resolve_members(row, info, filter=None, **page):
    c = ctx(info)
    members = c.linked("users", "team_memberships", "userId", teamId=row["id"])
    return connection(c.filters.apply("users", members, filter), **page)


@workflow_state.field("team")
def resolve_state_team(row, info):
    return ctx(info).get("teams", "Team", row.get("teamId"))


OBJECTS = [team, workflow_state]
