"""Issues: create and batch create, update (labels, parent, project, cycle, estimate, due date,
another team), batch update, labels, subscribers, and the history entry every change writes."""

from __future__ import annotations

import re
from typing import Any

from ariadne import ObjectType

from mock_services.graphql.context import GraphQLContext, ctx, new_id
from mock_services.linear.model import now_iso
from mock_services.graphql.errors import ApiError
from mock_services.linear.mutations import entity_payload, new_row, require, sync_id, update_row
from mock_services.linear.model import find
from mock_services.linear.resolvers.roots import mutation
from mock_services.store import Row

issue = ObjectType("Issue")

PRIORITY_LABELS = {0: "No priority", 1: "Urgent", 2: "High", 3: "Medium", 4: "Low"}
# Input fields stored as they come (the rest: labels, subscribers, priority and state have rules).
PLAIN_FIELDS = ("title", "description", "estimate", "dueDate", "assigneeId", "parentId", "projectId", "cycleId",
                "projectMilestoneId", "delegateId", "sortOrder", "subIssueSortOrder", "boardOrder")
# Columns whose change the history records as from<Column>/to<Column>.
TRACKED = ("stateId", "assigneeId", "title", "priority", "estimate", "dueDate", "parentId", "projectId", "cycleId",
           "projectMilestoneId", "teamId", "delegateId")
MAX_BATCH = 50


def priority_fields(value: Any) -> dict:
    if value not in PRIORITY_LABELS:
        raise ApiError("Argument Validation Error: priority must be between 0 and 4")
    return {"priority": float(value), "priorityLabel": PRIORITY_LABELS[value]}


def default_state(c: GraphQLContext, team_id: str) -> Row:
    states = c.state.rows("workflow_states", teamId=team_id)
    for kind in ("backlog", "unstarted", "triage"):
        candidates = sorted((s for s in states if s.get("type") == kind and not s.get("archivedAt")),
                            key=lambda s: s.get("position") or 0)
        if candidates:
            return candidates[0]
    raise ApiError("Team has no workflow states")


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40]


def label_ids(issue_row: Row, c: GraphQLContext) -> list[str]:
    return [link["issue_label_id"] for link in c.state.rows("issue_label_issue_association", issue_id=issue_row["id"])]


def set_labels(c: GraphQLContext, issue_row: Row, wanted: list[str]) -> list[str]:
    """Labels live in the association table (what AgentDiff asserts on) and in labelIds."""
    for label_id in wanted:
        find(c.state, "IssueLabel", label_id)
    for link in c.state.rows("issue_label_issue_association", issue_id=issue_row["id"]):
        c.state.delete("issue_label_issue_association", link)
    for label_id in dict.fromkeys(wanted):
        c.state.insert("issue_label_issue_association", {"issue_id": issue_row["id"], "issue_label_id": label_id})
    return list(dict.fromkeys(wanted))


def subscribe(c: GraphQLContext, issue_row: Row, user_id: str) -> None:
    if not c.state.first("issue_subscribers", issueId=issue_row["id"], userId=user_id):
        find(c.state, "User", user_id)
        c.state.insert("issue_subscribers", {"id": new_id(), "issueId": issue_row["id"],
                                             "userId": user_id, "createdAt": now_iso()})


def record_history(c: GraphQLContext, before: Row | None, after: Row, added: list[str] = (),
                   removed: list[str] = (), **flags: Any) -> None:
    """One issue_history row per change, in Linear's from/to fields."""
    entry: dict[str, Any] = {}
    for column in TRACKED:
        old, new = (before or {}).get(column), after.get(column)
        if before is not None and old != new:
            stem = column[0].upper() + column[1:]
            entry[f"from{stem}"], entry[f"to{stem}"] = old, new
    if before is not None and before.get("description") != after.get("description"):
        entry["updatedDescription"] = True
    if added:
        entry["addedLabelIds"] = list(added)
    if removed:
        entry["removedLabelIds"] = list(removed)
    entry |= flags
    if entry or before is None:
        now = now_iso()
        c.state.insert("issue_history", {"id": new_id(), "issueId": after["id"], "actorId": c.viewer_id, "createdAt": now,
                                         "updatedAt": now, "archivedAt": None, **entry})


def parent_checked(c: GraphQLContext, issue_id: str | None, parent_id: str | None) -> str | None:
    """A parent must exist and must not be the issue itself or one of its descendants."""
    if not parent_id:
        return None
    parent = find(c.state, "Issue", parent_id)
    ancestor: Row | None = parent
    while ancestor is not None:
        if ancestor["id"] == issue_id:
            raise ApiError("Argument Validation Error: an issue cannot be its own ancestor")
        ancestor = c.state.first("issues", id=ancestor.get("parentId")) if ancestor.get("parentId") else None
    return parent["id"]


def plain_changes(c: GraphQLContext, input: dict, issue_id: str | None) -> dict:
    changes = {k: input[k] for k in PLAIN_FIELDS if k in input}
    if "title" in changes:
        require(changes["title"], "title must not be empty")
    if "parentId" in changes:
        changes["parentId"] = parent_checked(c, issue_id, changes["parentId"])
    if input.get("priority") is not None:
        changes |= priority_fields(input["priority"])
    return changes


def last_number(c: GraphQLContext, team: Row) -> int:
    """The highest number the team has given: read from its issues, those moved away included,
    never counted in the team's row (its `issueCount` is the seed's, a floor)."""
    prefix = f"{team['key']}-"
    used = [int(team.get("issueCount") or 0)]
    for row in c.state.rows("issues"):
        if row.get("teamId") == team["id"]:
            used.append(int(row.get("number") or 0))
        used += [int(i[len(prefix):]) for i in row.get("previousIdentifiers") or []
                 if i.startswith(prefix) and i[len(prefix):].isdigit()]
    return max(used)


def numbered(c: GraphQLContext, team: Row, title: str) -> dict:
    """The next number of the team, and what follows from it: identifier, branch name, URL."""
    number = last_number(c, team) + 1
    identifier = f"{team['key']}-{number}"
    org = c.state.first("organizations") or {}
    return {"identifier": identifier, "number": float(number), "teamId": team["id"],
            "branchName": f"{identifier.lower()}-{slug(title)}",
            "url": f"https://linear.app/{org.get('urlKey', 'workspace')}/issue/{identifier}"}


def create_issue(c: GraphQLContext, input: dict) -> Row:
    title = require((input.get("title") or "").strip(), "title must not be empty")
    team = find(c.state, "Team", input["teamId"])
    state = find(c.state, "WorkflowState", input["stateId"]) if input.get("stateId") else default_state(c, team["id"])
    if state.get("teamId") != team["id"]:
        raise ApiError("Argument Validation Error: the state belongs to another team")
    changes = plain_changes(c, input, None)
    wanted = list(dict.fromkeys(input.get("labelIds") or []))
    for label_id in wanted:  # before the row: its one insert is whole (a webhook's create event)
        find(c.state, "IssueLabel", label_id)
    row = new_row(c, "Issue", {
        "id": input.get("id"), **numbered(c, team, title), "previousIdentifiers": [],
        "stateId": state["id"], "creatorId": c.viewer_id, **priority_fields(input.get("priority") or 0),
        "estimate": None, "dueDate": None, "assigneeId": None, "parentId": None,
        **changes, "labelIds": wanted, "title": title})
    labels = set_labels(c, row, wanted)
    for user_id in [c.viewer_id, *(input.get("subscriberIds") or [])]:
        subscribe(c, row, user_id)
    record_history(c, None, row, added=labels)
    return row


@mutation.field("issueCreate")
def resolve_issue_create(_, info, input):
    return entity_payload("issue", create_issue(ctx(info), input))


@mutation.field("issueBatchCreate")
def resolve_issue_batch_create(_, info, input):
    c = ctx(info)
    wanted = input["issues"]
    if not wanted or len(wanted) > MAX_BATCH:
        raise ApiError(f"Argument Validation Error: between 1 and {MAX_BATCH} issues at once")
    return {"success": True, "lastSyncId": sync_id(), "issues": [create_issue(c, one) for one in wanted]}


def moved(c: GraphQLContext, row: Row, team_id: str, state_id: str | None) -> dict:
    """To another team, as Linear moves an issue: the team's next identifier (the old one kept in
    previousIdentifiers) and the given state, else the team's state of the same type."""
    team = c.state.first("teams", id=team_id)
    if state_id is None:
        kind = (c.state.first("workflow_states", id=row.get("stateId")) or {}).get("type")
        same = sorted((s for s in c.state.rows("workflow_states", teamId=team["id"])
                       if s.get("type") == kind and not s.get("archivedAt")), key=lambda s: s.get("position") or 0)
        state_id = same[0]["id"] if same else default_state(c, team["id"])["id"]
    return {**numbered(c, team, row.get("title") or ""), "stateId": state_id,
            "previousIdentifiers": [*(row.get("previousIdentifiers") or []), row["identifier"]]}


def apply_update(c: GraphQLContext, row: Row, input: dict) -> Row:
    """One issue's update: only the fields given change (null clears)."""
    changes = plain_changes(c, input, row["id"])
    team_id = (find(c.state, "Team", require(input["teamId"], "teamId must not be null"))["id"]
               if "teamId" in input else row["teamId"])
    if "stateId" in input:
        state = find(c.state, "WorkflowState", require(input["stateId"], "stateId must not be null"))
        if state.get("teamId") != team_id:
            raise ApiError("Argument Validation Error: the state belongs to another team")
        changes["stateId"] = state["id"]
    if team_id != row["teamId"]:
        changes |= moved(c, row, team_id, changes.get("stateId"))
    before_labels = label_ids(row, c)
    labels = list(before_labels)
    if input.get("labelIds") is not None:
        labels = list(input["labelIds"])
    labels += [i for i in input.get("addedLabelIds") or [] if i not in labels]
    labels = [i for i in labels if i not in set(input.get("removedLabelIds") or [])]
    if labels != before_labels:
        changes["labelIds"] = set_labels(c, row, labels)
    for user_id in input.get("subscriberIds") or []:
        subscribe(c, row, user_id)
    updated = update_row(c, "Issue", row, changes)
    record_history(c, row, updated, added=[i for i in labels if i not in before_labels],
                   removed=[i for i in before_labels if i not in labels])
    return updated


@mutation.field("issueUpdate")
def resolve_issue_update(_, info, id, input):
    c = ctx(info)
    return entity_payload("issue", apply_update(c, find(c.state, "Issue", id), input))


@mutation.field("issueBatchUpdate")
def resolve_issue_batch_update(_, info, ids, input):
    c = ctx(info)
    if len(ids) > MAX_BATCH:
        raise ApiError(f"Argument Validation Error: at most {MAX_BATCH} issues at once")
    rows = [find(c.state, "Issue", ref) for ref in ids]
    return {"success": True, "lastSyncId": sync_id(), "issues": [apply_update(c, row, input) for row in rows]}


def archived(c: GraphQLContext, ref: str, archive: bool, **flags: Any) -> dict:
    row = find(c.state, "Issue", ref)
    if bool(row.get("archivedAt")) == archive:
        raise ApiError(f"Issue is {'already' if archive else 'not'} archived")
    updated = update_row(c, "Issue", row, {"archivedAt": now_iso() if archive else None, **flags})
    record_history(c, row, updated, archived=archive)
    return {"success": True, "lastSyncId": sync_id(), "entity": updated}


@mutation.field("issueArchive")
def resolve_issue_archive(_, info, id, trash=None):
    return archived(ctx(info), id, True, trashed=bool(trash))


@mutation.field("issueUnarchive")
def resolve_issue_unarchive(_, info, id):
    return archived(ctx(info), id, False, trashed=False)


@mutation.field("issueDelete")
def resolve_issue_delete(_, info, id, permanentlyDelete=None):
    """Linear moves a deleted issue to the trash (archived, trashed); an admin may delete it for good."""
    c = ctx(info)
    if not permanentlyDelete:
        return archived(c, id, True, trashed=True)
    row = find(c.state, "Issue", id)
    for link in c.state.rows("issue_label_issue_association", issue_id=row["id"]):
        c.state.delete("issue_label_issue_association", link)
    c.state.delete("issues", row)
    return {"success": True, "lastSyncId": sync_id(), "entity": row}


def label_change(info, id: str, label_id: str, add: bool) -> dict:
    c = ctx(info)
    row = find(c.state, "Issue", id)
    key = "addedLabelIds" if add else "removedLabelIds"
    return entity_payload("issue", apply_update(c, row, {key: [find(c.state, "IssueLabel", label_id)["id"]]}))


@mutation.field("issueAddLabel")
def resolve_issue_add_label(_, info, id, labelId):
    return label_change(info, id, labelId, True)


@mutation.field("issueRemoveLabel")
def resolve_issue_remove_label(_, info, id, labelId):
    return label_change(info, id, labelId, False)


@mutation.field("issueSubscribe")
def resolve_issue_subscribe(_, info, id, userId=None, **__):
    c = ctx(info)
    row = find(c.state, "Issue", id)
    subscribe(c, row, userId or c.viewer_id)
    return entity_payload("issue", row)


@mutation.field("issueUnsubscribe")
def resolve_issue_unsubscribe(_, info, id, userId=None, **__):
    c = ctx(info)
    row = find(c.state, "Issue", id)
    link = c.state.first("issue_subscribers", issueId=row["id"], userId=userId or c.viewer_id)
    if link:
        c.state.delete("issue_subscribers", link)
    return entity_payload("issue", row)


@issue.field("sharedAccess")
def resolve_shared_access(row, _info):
    """Issues here are never shared beyond their team (@linear/sdk expects the object)."""
    return {"isShared": False, "viewerHasOnlySharedAccess": False, "sharedWithCount": 0, "sharedWithUsers": []}


OBJECTS = [issue]
