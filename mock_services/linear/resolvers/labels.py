"""Issue labels: issueLabelCreate and issueLabelUpdate (names unique within a team)."""

from __future__ import annotations

from mock_services.graphql.context import ctx
from mock_services.linear.model import now_iso
from mock_services.linear.mutations import changed, entity_payload, fresh_id
from mock_services.graphql.errors import ApiError
from mock_services.linear.model import find
from mock_services.linear.resolvers.roots import mutation

def _unique(c, name: str, team_id: str | None, own_id: str | None = None) -> None:
    for other in c.state.rows("issue_labels", name=name):
        if other.get("teamId") == team_id and other["id"] != own_id:
            raise ApiError(f"A label named {name} already exists")


@mutation.field("issueLabelCreate")
def resolve_label_create(_, info, input, **__):
    c = ctx(info)
    name = input["name"].strip()
    if not name:
        raise ApiError("Argument Validation Error: name must not be empty")
    if input.get("teamId"):
        find(c.state, "Team", input["teamId"])
    _unique(c, name, input.get("teamId"))
    org = c.state.first("organizations") or {}
    now = now_iso()
    row = c.state.insert("issue_labels", {
        "id": fresh_id(c, "issue_labels", input.get("id")), "name": name, "color": input.get("color") or "#bec2c8",
        "description": input.get("description"), "teamId": input.get("teamId"), "parentId": input.get("parentId"),
        "organizationId": org.get("id"), "creatorId": c.viewer_id, "isGroup": False, "archivedAt": None,
        "createdAt": now, "updatedAt": now})
    return entity_payload("issueLabel", row)


@mutation.field("issueLabelUpdate")
def resolve_label_update(_, info, id, input, **__):
    c = ctx(info)
    row = find(c.state, "IssueLabel", id)
    updates = {k: v for k, v in input.items() if v is not None}
    if "name" in updates:
        _unique(c, updates["name"], row.get("teamId"), id)
    return entity_payload("issueLabel", c.state.update("issue_labels", changed(row, updates)))


OBJECTS: list = []
