"""Teams: teamCreate with Linear's default workflow, and memberships."""

from __future__ import annotations

import re

from ariadne import ObjectType

from mock_services.graphql.context import ctx, new_id
from mock_services.linear.model import now_iso
from mock_services.graphql.errors import ApiError
from mock_services.linear.mutations import entity_payload, fresh_id, new_row
from mock_services.linear.model import find
from mock_services.linear.resolvers.roots import mutation

# The workflow a new Linear team starts with: (name, type, color, position).
DEFAULT_STATES = [("Backlog", "backlog", "#95a2b3", 0.0), ("Todo", "unstarted", "#e2e2e2", 1.0),
                  ("In Progress", "started", "#f2c94c", 2.0), ("Done", "completed", "#5e6ad2", 3.0),
                  ("Canceled", "canceled", "#95a2b3", 4.0)]
KEY = re.compile(r"^[A-Z0-9]{1,7}$")


def add_member(c, team_id: str, user_id: str, owner: bool = False, sortOrder: float = 0.0, id=None) -> dict:
    if c.state.first("team_memberships", teamId=team_id, userId=user_id):
        raise ApiError("User is already a member of this team")
    return new_row(c, "TeamMembership", {"id": id, "teamId": team_id, "userId": user_id, "owner": owner,
                                         "sortOrder": sortOrder})


def derived_key(c, name: str) -> str:
    """Linear's key for a team created without one: the name's first letters, made unique."""
    stem = (re.sub(r"[^A-Za-z0-9]", "", name)[:3] or "T").upper()
    key, n = stem, 1
    while c.state.first("teams", key=key):
        n += 1
        key = f"{stem}{n}"[:7]
    return key


@mutation.field("teamCreate")
def resolve_team_create(_, info, input, **__):
    """A new team, its default workflow, and the viewer as its owner."""
    c = ctx(info)
    name = input["name"].strip()
    key = input["key"].upper() if input.get("key") else derived_key(c, name)
    if not name or not KEY.fullmatch(key):
        raise ApiError("Argument Validation Error: a team needs a name and a key of 1-7 letters or digits")
    if c.state.first("teams", key=key):
        raise ApiError(f"Team key {key} is already in use")
    org = c.state.first("organizations") or {}
    now = now_iso()
    row = c.state.insert("teams", {
        "id": fresh_id(c, "teams", input.get("id")), "name": name, "key": key, "displayName": name,
        "description": input.get("description"), "color": input.get("color"), "icon": input.get("icon"),
        "private": bool(input.get("private")), "organizationId": org.get("id"), "issueCount": 0,
        "cyclesEnabled": bool(input.get("cyclesEnabled")), "createdAt": now, "updatedAt": now})
    for state_name, kind, color, position in DEFAULT_STATES:
        c.state.insert("workflow_states", {"id": new_id(), "teamId": row["id"], "name": state_name, "type": kind,
                                           "color": color, "position": position, "createdAt": now, "updatedAt": now})
    add_member(c, row["id"], c.viewer_id, owner=True)
    return entity_payload("team", row)


@mutation.field("teamMembershipCreate")
def resolve_membership_create(_, info, input):
    c = ctx(info)
    find(c.state, "Team", input["teamId"])
    find(c.state, "User", input["userId"])
    row = add_member(c, input["teamId"], input["userId"], bool(input.get("owner")),
                     float(input.get("sortOrder") or 0.0), input.get("id"))
    return entity_payload("teamMembership", row)


team = ObjectType("Team")


@team.field("issueCount")
def resolve_issue_count(row, info, includeArchived=False, **__):
    """Linear counts the team's issues when asked; creating one changes no team row."""
    issues = ctx(info).state.rows("issues", teamId=row["id"])
    return len([i for i in issues if includeArchived or not i.get("archivedAt")])


OBJECTS: list = [team]
