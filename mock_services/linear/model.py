"""Which of Linear's types the replica keeps rows for, and how those rows point at each other.

One table drives field resolution, filters and mutations alike. Relations follow Linear's
own naming, so most need no entry: `Issue.assignee` is the user whose id is in the row's
`assigneeId`, and `Team.issues` are the issues whose `teamId` is the team's id. Only the
exceptions to that convention are listed.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Any

from mock_services.linear.errors import not_found
from mock_services.store import EnvState, Row

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
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


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


def lower_first(name: str) -> str:
    return name[:1].lower() + name[1:]


def foreign_key(type_name: str, field: str) -> str:
    return FOREIGN_KEYS.get((type_name, field), f"{field}Id")


def back_reference(type_name: str, field: str) -> str:
    return BACK_REFERENCES.get((type_name, field), f"{lower_first(type_name)}Id")


def related(state: EnvState, type_name: str, field: str, target: str, row: Row) -> Row | None:
    """The row a to-one field names (`Issue.team`), or None."""
    if target == "Organization":
        return state.first("organizations")
    ref = row.get(foreign_key(type_name, field))
    return state.first(TABLES[target], id=ref) if isinstance(ref, str) and ref else None


def listed(state: EnvState, type_name: str, field: str, target: str, row: Row) -> list[Row]:
    """The rows a to-many field lists (`Team.issues`, `Issue.labels`), before filters and paging."""
    table = TABLES[target]
    if type_name == "Organization" and ORGANIZATION_LISTS.get(field) == table:
        return state.rows(table)
    link = LINKS.get((type_name, field))
    if link:
        link_table, this_side, other_side = link
        ids = {l[other_side] for l in state.rows(link_table, **{this_side: row.get("id")})}
        return [r for r in state.rows(table) if r.get("id") in ids]
    return state.rows(table, **{back_reference(type_name, field): row.get("id")})


IDENTIFIER = re.compile(r"^[A-Za-z0-9]+-\d+$")

# type -> other columns a root lookup by `id` also accepts
ALTERNATE_KEYS: dict[str, tuple[str, ...]] = {"Issue": ("identifier",), "Team": ("key",)}


def find(state: EnvState, type_name: str, ref: Any) -> Row:
    """A row of a modeled type by id (or alternate key), else Linear's 'Entity not found'."""
    table = TABLES[type_name]
    found = state.first(table, id=ref) if isinstance(ref, str) and ref else None
    for column in ALTERNATE_KEYS.get(type_name, ()):
        if found is None and isinstance(ref, str) and ref:
            value = ref.upper() if column == "identifier" and IDENTIFIER.fullmatch(ref) else ref
            found = state.first(table, **{column: value})
    if found is None:
        raise not_found(type_name)
    return found
