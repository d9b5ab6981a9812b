"""Issue labels: issueLabels, issueLabelCreate and issueLabelUpdate."""

from __future__ import annotations

from ariadne import ObjectType

from mock_services.linear.context import changed, ctx, new_id, now_iso, payload
from mock_services.linear.errors import LinearError
from mock_services.linear.pagination import connection
from mock_services.linear.resolvers.roots import mutation, query

label = ObjectType("IssueLabel")


@query.field("issueLabels")
def resolve_issue_labels(_, info, filter=None, **page):
    c = ctx(info)
    return connection(c.filters.apply("issue_labels", c.state.rows("issue_labels"), filter), **page)


def _unique(c, name: str, team_id: str | None, own_id: str | None = None) -> None:
    for other in c.state.rows("issue_labels", name=name):
        if other.get("teamId") == team_id and other["id"] != own_id:
            raise LinearError(f"A label named {name} already exists")


@mutation.field("issueLabelCreate")
def resolve_label_create(_, info, input):
    c = ctx(info)
    name = input["name"].strip()
    if not name:
        raise LinearError("Argument Validation Error: name must not be empty")
    if input.get("teamId"):
        c.get("teams", "Team", input["teamId"])
    _unique(c, name, input.get("teamId"))
    org = c.state.first("organizations") or {}
    now = now_iso()
    row = c.state.insert("issue_labels", {
        "id": input.get("id") or new_id(), "name": name, "color": input.get("color") or "#bec2c8",
        "description": input.get("description"), "teamId": input.get("teamId"), "parentId": input.get("parentId"),
        "organizationId": org.get("id"), "creatorId": c.viewer_id, "isGroup": False, "archivedAt": None,
        "createdAt": now, "updatedAt": now})
    return payload("issueLabel", row)


@mutation.field("issueLabelUpdate")
def resolve_label_update(_, info, id, input):
    c = ctx(info)
    row = c.get("issue_labels", "IssueLabel", id)
    updates = {k: v for k, v in input.items() if v is not None}
    if "name" in updates:
        _unique(c, updates["name"], row.get("teamId"), id)
    return payload("issueLabel", c.state.update("issue_labels", changed(row, updates)))


@label.field("team")
def resolve_label_team(row, info):
    return ctx(info).maybe("teams", row.get("teamId"))


OBJECTS = [label]
