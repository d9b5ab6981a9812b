"""Workflow states: queries, workflowStateCreate and workflowStateArchive."""

from __future__ import annotations

from ariadne import ObjectType

from mock_services.linear.context import changed, ctx, new_id, now_iso, payload
from mock_services.linear.errors import LinearError
from mock_services.linear.pagination import connection
from mock_services.linear.resolvers.roots import mutation, query

workflow_state = ObjectType("WorkflowState")
STATE_TYPES = {"triage", "backlog", "unstarted", "started", "completed", "canceled"}


@query.field("workflowStates")
def resolve_workflow_states(_, info, filter=None, includeArchived=False, **page):
    c = ctx(info)
    states = [s for s in c.state.rows("workflow_states") if includeArchived or not s.get("archivedAt")]
    return connection(c.filters.apply("workflow_states", states, filter), **page)


@query.field("workflowState")
def resolve_workflow_state(_, info, id):
    return ctx(info).get("workflow_states", "WorkflowState", id)


@mutation.field("workflowStateCreate")
def resolve_state_create(_, info, input):
    c = ctx(info)
    c.get("teams", "Team", input["teamId"])
    if input["type"] not in STATE_TYPES:
        raise LinearError(f"Argument Validation Error: type must be one of {', '.join(sorted(STATE_TYPES))}")
    siblings = c.state.rows("workflow_states", teamId=input["teamId"])
    if any(s["name"] == input["name"] for s in siblings):
        raise LinearError(f"A workflow state named {input['name']} already exists in this team")
    now = now_iso()
    position = input.get("position")
    row = c.state.insert("workflow_states", {
        "id": input.get("id") or new_id(), "teamId": input["teamId"], "name": input["name"], "type": input["type"],
        "color": input["color"], "description": input.get("description"),
        "position": float(position) if position is not None else max((s["position"] for s in siblings), default=0) + 1,
        "createdAt": now, "updatedAt": now})
    return payload("workflowState", row)


@mutation.field("workflowStateArchive")
def resolve_state_archive(_, info, id):
    c = ctx(info)
    state = c.get("workflow_states", "WorkflowState", id)
    if state.get("archivedAt"):
        raise LinearError("Workflow state is already archived")
    if c.state.first("issues", stateId=id):
        raise LinearError("Cannot archive a workflow state that still has issues")
    return payload("entity", c.state.update("workflow_states", changed(state, {"archivedAt": now_iso()})))


@workflow_state.field("team")
def resolve_state_team(row, info):
    return ctx(info).get("teams", "Team", row.get("teamId"))


OBJECTS = [workflow_state]
