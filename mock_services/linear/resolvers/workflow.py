"""Workflow states: workflowStateCreate and workflowStateArchive."""

from __future__ import annotations

from mock_services.graphql.context import ctx
from mock_services.linear.model import now_iso
from mock_services.linear.mutations import changed, entity_payload, fresh_id
from mock_services.graphql.errors import ApiError
from mock_services.linear.model import find
from mock_services.linear.resolvers.roots import mutation

STATE_TYPES = {"triage", "backlog", "unstarted", "started", "completed", "canceled"}


@mutation.field("workflowStateCreate")
def resolve_state_create(_, info, input):
    c = ctx(info)
    find(c.state, "Team", input["teamId"])
    if input["type"] not in STATE_TYPES:
        raise ApiError(f"Argument Validation Error: type must be one of {', '.join(sorted(STATE_TYPES))}")
    siblings = c.state.rows("workflow_states", teamId=input["teamId"])
    if any(s["name"] == input["name"] for s in siblings):
        raise ApiError(f"A workflow state named {input['name']} already exists in this team")
    now = now_iso()
    position = input.get("position")
    row = c.state.insert("workflow_states", {
        "id": fresh_id(c, "workflow_states", input.get("id")), "teamId": input["teamId"], "name": input["name"], "type": input["type"],
        "color": input["color"], "description": input.get("description"),
        "position": float(position) if position is not None else max((s["position"] for s in siblings), default=0) + 1,
        "createdAt": now, "updatedAt": now})
    return entity_payload("workflowState", row)


@mutation.field("workflowStateArchive")
def resolve_state_archive(_, info, id):
    c = ctx(info)
    state = find(c.state, "WorkflowState", id)
    if state.get("archivedAt"):
        raise ApiError("Workflow state is already archived")
    if c.state.first("issues", stateId=id):
        raise ApiError("Cannot archive a workflow state that still has issues")
    return entity_payload("entity", c.state.update("workflow_states", changed(state, {"archivedAt": now_iso()})))


OBJECTS: list = []
