"""Teams and their workflow states and members."""

from __future__ import annotations

from ariadne import ObjectType

import re

from mock_services.linear.context import ctx, new_id, now_iso, payload
from mock_services.linear.errors import LinearError
from mock_services.linear.pagination import connection
from mock_services.linear.resolvers.roots import mutation, query

team = ObjectType("Team")
membership = ObjectType("TeamMembership")

# The workflow a new Linear team starts with: (name, type, color, position).
DEFAULT_STATES = [("Backlog", "backlog", "#95a2b3", 0.0), ("Todo", "unstarted", "#e2e2e2", 1.0),
                  ("In Progress", "started", "#f2c94c", 2.0), ("Done", "completed", "#5e6ad2", 3.0),
                  ("Canceled", "canceled", "#95a2b3", 4.0)]
KEY = re.compile(r"^[A-Z0-9]{1,7}$")


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


def add_member(c, team_id: str, user_id: str, owner: bool = False, sortOrder: float = 0.0, id=None) -> dict:
    if c.state.first("team_memberships", teamId=team_id, userId=user_id):
        raise LinearError("User is already a member of this team")
    now = now_iso()
    return c.state.insert("team_memberships", {"id": id or new_id(), "teamId": team_id, "userId": user_id,
                                               "owner": owner, "sortOrder": sortOrder, "archivedAt": None,
                                               "createdAt": now, "updatedAt": now})


@mutation.field("teamCreate")
def resolve_team_create(_, info, input):
    """A new team, its default workflow, and the viewer as its owner."""
    c = ctx(info)
    name = input["name"].strip()
    key = (input.get("key") or re.sub(r"[^A-Za-z0-9]", "", name)[:3]).upper()
    if not name or not KEY.fullmatch(key):
        raise LinearError("Argument Validation Error: a team needs a name and a key of 1-7 letters or digits")
    if c.state.first("teams", key=key):
        raise LinearError(f"Team key {key} is already in use")
    org = c.state.first("organizations") or {}
    now = now_iso()
    row = c.state.insert("teams", {
        "id": input.get("id") or new_id(), "name": name, "key": key, "displayName": name,
        "description": input.get("description"), "color": input.get("color"), "icon": input.get("icon"),
        "private": bool(input.get("private")), "organizationId": org.get("id"), "issueCount": 0,
        "createdAt": now, "updatedAt": now})
    for state_name, kind, color, position in DEFAULT_STATES:
        c.state.insert("workflow_states", {"id": new_id(), "teamId": row["id"], "name": state_name, "type": kind,
                                           "color": color, "position": position, "createdAt": now, "updatedAt": now})
    add_member(c, row["id"], c.viewer_id, owner=True)
    return payload("team", row)


@mutation.field("teamMembershipCreate")
def resolve_membership_create(_, info, input):
    c = ctx(info)
    c.get("teams", "Team", input["teamId"])
    c.get("users", "User", input["userId"])
    row = add_member(c, input["teamId"], input["userId"], bool(input.get("owner")),
                     float(input.get("sortOrder") or 0.0), input.get("id"))
    return payload("teamMembership", row)


@membership.field("user")
def resolve_membership_user(row, info):
    return ctx(info).get("users", "User", row["userId"])


@membership.field("team")
def resolve_membership_team(row, info):
    return ctx(info).get("teams", "Team", row["teamId"])


OBJECTS = [team, membership]
