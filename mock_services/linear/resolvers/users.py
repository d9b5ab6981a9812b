"""Users, the viewer and the organization."""

from __future__ import annotations

from ariadne import ObjectType

from mock_services.linear.context import ctx
from mock_services.linear.pagination import connection
from mock_services.linear.resolvers.roots import query

user = ObjectType("User")


@query.field("viewer")
def resolve_viewer(_, info):
    return ctx(info).get("users", "User", ctx(info).viewer_id)


@query.field("organization")
def resolve_organization(_, info):
    return ctx(info).state.first("organizations") or {}


@query.field("users")
def resolve_users(_, info, filter=None, **page):
    c = ctx(info)
    return connection(c.filters.apply("users", c.state.rows("users"), filter), **page)


@query.field("user")
def resolve_user(_, info, id):
    return ctx(info).get("users", "User", id)


@user.field("isMe")
def resolve_is_me(row, info):
    return row["id"] == ctx(info).viewer_id


@user.field("organization")
def resolve_user_organization(row, info):
    return ctx(info).maybe("organizations", row.get("organizationId")) or ctx(info).state.first("organizations")


@user.field("teams")
def resolve_user_teams(row, info, filter=None, **page):
    c = ctx(info)
    teams = c.linked("teams", "team_memberships", "teamId", userId=row["id"])
    return connection(c.filters.apply("teams", teams, filter), **page)


@user.field("assignedIssues")
def resolve_assigned_issues(row, info, filter=None, **page):
    c = ctx(info)
    return connection(c.filters.apply("issues", c.state.rows("issues", assigneeId=row["id"]), filter), **page)


OBJECTS = [user]
