"""Issues: queries by id or identifier, relations, and issueCreate."""

from __future__ import annotations

import re

from ariadne import ObjectType

from mock_services.linear.context import LinearContext, changed, ctx, new_id, now_iso, payload
from mock_services.linear.errors import LinearError, not_found
from mock_services.linear.pagination import connection
from mock_services.linear.resolvers.roots import mutation, query
from mock_services.store import Row

issue = ObjectType("Issue")

PRIORITY_LABELS = {0: "No priority", 1: "Urgent", 2: "High", 3: "Medium", 4: "Low"}
IDENTIFIER = re.compile(r"^[A-Za-z0-9]+-\d+$")


def find_issue(info, ref: str) -> Row:
    """Linear accepts an issue's UUID or its identifier (ENG-1)."""
    state = ctx(info).state
    found = state.first("issues", id=ref)
    if found is None and IDENTIFIER.fullmatch(ref):
        found = state.first("issues", identifier=ref.upper())
    if found is None:
        raise not_found("Issue")
    return found


@query.field("issues")
def resolve_issues(_, info, filter=None, **page):
    c = ctx(info)
    return connection(c.filters.apply("issues", c.state.rows("issues"), filter), **page)


@query.field("issue")
def resolve_issue(_, info, id):
    return find_issue(info, id)


@issue.field("team")
def resolve_team(row, info):
    return ctx(info).get("teams", "Team", row.get("teamId"))


@issue.field("state")
def resolve_state(row, info):
    return ctx(info).get("workflow_states", "WorkflowState", row.get("stateId"))


@issue.field("assignee")
def resolve_assignee(row, info):
    return ctx(info).maybe("users", row.get("assigneeId"))


@issue.field("creator")
def resolve_creator(row, info):
    return ctx(info).maybe("users", row.get("creatorId"))


@issue.field("labels")
def resolve_labels(row, info, **page):
    c = ctx(info)
    labels = c.linked("issue_labels", "issue_label_issue_association", "issue_label_id", issue_id=row["id"])
    listed = set(row.get("labelIds") or []) - {label["id"] for label in labels}
    labels += [label for label in c.state.rows("issue_labels") if label["id"] in listed]
    return connection(labels, **page)


@issue.field("reactions")
def resolve_reactions(row, _info):
    return row.get("reactions") or []


@issue.field("sharedAccess")
def resolve_shared_access(row, _info):
    """Issues here are never shared beyond their team (@linear/sdk expects the object)."""
    return {"isShared": False, "viewerHasOnlySharedAccess": False, "sharedWithCount": 0, "sharedWithUsers": []}


@issue.field("comments")
def resolve_comments(row, info, **page):
    return connection(ctx(info).state.rows("comments", issueId=row["id"]), **page)


def set_labels(c: LinearContext, issue: Row, label_ids: list[str]) -> None:
    """Labels live in the association table (what AgentDiff asserts on) and in labelIds."""
    for label_id in label_ids:
        c.get("issue_labels", "IssueLabel", label_id)
    for link in c.state.rows("issue_label_issue_association", issue_id=issue["id"]):
        c.state.delete("issue_label_issue_association", link)
    for label_id in label_ids:
        c.state.insert("issue_label_issue_association", {"issue_id": issue["id"], "issue_label_id": label_id})


def _priority(value: int) -> dict:
    if value not in PRIORITY_LABELS:
        raise LinearError("Argument Validation Error: priority must be between 0 and 4")
    return {"priority": float(value), "priorityLabel": PRIORITY_LABELS[value]}


def _default_state(info, team_id: str) -> Row:
    states = ctx(info).state.rows("workflow_states", teamId=team_id)
    for kind in ("backlog", "unstarted", "triage"):
        candidates = sorted((s for s in states if s.get("type") == kind), key=lambda s: s.get("position") or 0)
        if candidates:
            return candidates[0]
    raise LinearError("Team has no workflow states")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40]


@mutation.field("issueCreate")
def resolve_issue_create(_, info, input):
    c = ctx(info)
    title = (input.get("title") or "").strip()
    if not title:
        raise LinearError("Argument Validation Error: title must not be empty")
    priority = _priority(input.get("priority") or 0)
    team = c.get("teams", "Team", input["teamId"])
    state = c.get("workflow_states", "WorkflowState", input["stateId"]) if input.get("stateId") \
        else _default_state(info, team["id"])
    if input.get("assigneeId"):
        c.get("users", "User", input["assigneeId"])
    number = int(team.get("issueCount") or 0) + 1
    c.state.update("teams", {**team, "issueCount": number})
    identifier = f"{team['key']}-{number}"
    org = c.state.first("organizations") or {}
    now = now_iso()
    row = c.state.insert("issues", {
        "id": input.get("id") or new_id(),
        "identifier": identifier,
        "number": float(number),
        "title": title,
        "description": input.get("description"),
        "teamId": team["id"],
        "stateId": state["id"],
        "assigneeId": input.get("assigneeId"),
        "creatorId": c.viewer_id,
        **priority,
        "estimate": input.get("estimate"),
        "dueDate": input.get("dueDate"),
        "labelIds": input.get("labelIds") or [],
        "branchName": f"{identifier.lower()}-{_slug(title)}",
        "url": f"https://linear.app/{org.get('urlKey', 'workspace')}/issue/{identifier}",
        "createdAt": now,
        "updatedAt": now,
    })
    set_labels(c, row, row["labelIds"])
    return payload("issue", row)


@mutation.field("issueUpdate")
def resolve_issue_update(_, info, id, input):
    """Only the fields given change (assigneeId: null unassigns)."""
    c = ctx(info)
    issue = find_issue(info, id)
    updates = {k: v for k, v in input.items() if k in ("title", "description", "estimate", "dueDate", "assigneeId")}
    if "title" in updates and not (updates["title"] or "").strip():
        raise LinearError("Argument Validation Error: title must not be empty")
    if input.get("assigneeId"):
        c.get("users", "User", input["assigneeId"])
    if "stateId" in input:
        state = c.get("workflow_states", "WorkflowState", input["stateId"])
        if state.get("teamId") != issue["teamId"]:
            raise LinearError("Argument Validation Error: the state belongs to another team")
        updates["stateId"] = state["id"]
    if input.get("priority") is not None:
        updates |= _priority(input["priority"])
    if input.get("labelIds") is not None:
        updates["labelIds"] = input["labelIds"]
        set_labels(c, issue, input["labelIds"])
    return payload("issue", c.state.update("issues", changed(issue, updates)))


OBJECTS = [issue]
