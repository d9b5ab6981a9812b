"""Which of Linear's types the replica keeps rows for, and how those rows point at each other:
Linear's `EntityModel` for the GraphQL engine (mock_services/graphql/entities.py).

One table drives field resolution, filters and mutations alike. Relations follow Linear's
own naming, so most need no entry: `Issue.assignee` is the user whose id is in the row's
`assigneeId`, and `Team.issues` are the issues whose `teamId` is the team's id. Only the
exceptions to that convention are listed.
"""

from __future__ import annotations

import re
from typing import Any

from mock_services import clock
from mock_services.graphql.entities import EntityModel, lower_first
from mock_services.store import Row

# GraphQL type -> table (AgentDiff's names for the tables its seeds have).
TABLES: dict[str, str] = {
    "Organization": "organizations",
    "User": "users",
    "Team": "teams",
    "TeamMembership": "team_memberships",
    "WorkflowState": "workflow_states",
    "Issue": "issues",
    "IssueSearchResult": "issues",  # what searchIssues returns: an issue with search metadata
    "IssueLabel": "issue_labels",
    "IssueRelation": "issue_relations",
    "IssueHistory": "issue_history",
    "Comment": "comments",
    "Reaction": "reactions",
    "Attachment": "attachments",
    "Project": "projects",
    "ProjectMilestone": "project_milestones",
    "Cycle": "cycles",
    "Favorite": "favorites",
    "Webhook": "webhooks",
}

# (type, field) -> the column holding the related row's id, where it is not `<field>Id`.
FOREIGN_KEYS: dict[tuple[str, str], str] = {
    ("Favorite", "owner"): "userId",
    ("IssueLabel", "inheritedFrom"): "inheritedFromId",
}

# (type, field) -> the column of the listed rows that points back, where it is not `<type>Id`.
BACK_REFERENCES: dict[tuple[str, str], str] = {
    ("Issue", "children"): "parentId",
    ("Issue", "inverseRelations"): "relatedIssueId",
    ("User", "assignedIssues"): "assigneeId",
    ("User", "createdIssues"): "creatorId",
    ("User", "delegatedIssues"): "delegateId",
    ("WorkflowState", "issues"): "stateId",
    ("Comment", "children"): "parentId",
    ("IssueLabel", "children"): "parentId",
    ("Favorite", "children"): "parentId",
    ("Project", "comments"): "projectId",
}

# (type, field) -> (link table, this side's column, other side's column): many-to-many.
LINKS: dict[tuple[str, str], tuple[str, str, str]] = {
    ("Issue", "labels"): ("issue_label_issue_association", "issue_id", "issue_label_id"),
    ("IssueLabel", "issues"): ("issue_label_issue_association", "issue_label_id", "issue_id"),
    ("Team", "members"): ("team_memberships", "teamId", "userId"),
    ("User", "teams"): ("team_memberships", "userId", "teamId"),
    ("Issue", "subscribers"): ("issue_subscribers", "issueId", "userId"),
    ("Project", "teams"): ("project_teams", "projectId", "teamId"),
    ("Team", "projects"): ("project_teams", "teamId", "projectId"),
    ("Project", "members"): ("project_members", "projectId", "userId"),
}

# Fields Linear computes from a row rather than stores: (type, field) -> function of the row.
# The default resolver and the filters both read them.
def now_iso() -> str:
    return clock.utcnow().isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _cycle_phase(row: Row) -> str:
    now = now_iso()
    if str(row.get("endsAt") or "") <= now:
        return "past"
    return "active" if str(row.get("startsAt") or "") <= now else "future"


COMPUTED: dict[tuple[str, str], Any] = {
    ("Cycle", "isActive"): lambda row: _cycle_phase(row) == "active",
    ("Cycle", "isFuture"): lambda row: _cycle_phase(row) == "future",
    ("Cycle", "isPast"): lambda row: _cycle_phase(row) == "past",
}

# Fields of the one organization that list every row of a table.
ORGANIZATION_LISTS = {"teams": "teams", "users": "users", "labels": "issue_labels"}


IDENTIFIER = re.compile(r"^[A-Za-z0-9]+-\d+$")


def _identifier(ref: str) -> str:
    """`eng-1` finds ENG-1."""
    return ref.upper() if IDENTIFIER.fullmatch(ref) else ref


MODEL = EntityModel(
    tables=TABLES, foreign_keys=FOREIGN_KEYS, back_references=BACK_REFERENCES, links=LINKS, computed=COMPUTED,
    singletons={"Organization": "organizations"},
    singleton_lists={("Organization", field): table for field, table in ORGANIZATION_LISTS.items()},
    alternate_keys={"Issue": ("identifier",), "Team": ("key",)}, key_forms={"identifier": _identifier})
find = MODEL.find
related = MODEL.related
listed = MODEL.listed

__all__ = ["MODEL", "TABLES", "COMPUTED", "find", "related", "listed", "lower_first", "now_iso"]
