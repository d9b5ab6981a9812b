"""Projects (teams and members linked), milestones, cycles, attachments, reactions and favorites.

Most of their mutations are the generic ones (mutations.py); this module adds what each
entity starts with, and the few mutations whose inputs are not plain columns.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

from mock_services import clock
from mock_services.graphql.context import GraphQLContext, ctx, new_id
from mock_services.graphql.errors import ApiError
from mock_services.linear.mutations import NEW_ROW_DEFAULTS, entity_payload, new_row, require, update_row
from mock_services.linear.model import find
from mock_services.linear.resolvers.roots import mutation
from mock_services.store import Row

# Input list fields of a project that are links to other rows: input field -> (link table, other column).
PROJECT_LINKS = {"teamIds": ("project_teams", "teamId", "Team"), "memberIds": ("project_members", "userId", "User")}


def slug_id(name: str) -> str:
    """Linear's project slugs: the name's words and a short random suffix."""
    return f"{re.sub(r'[^a-z0-9]+', '-', name.lower()).strip('-')[:40]}-{clock.token_hex(6)}"


def org_url(c: GraphQLContext) -> str:
    return f"https://linear.app/{(c.state.first('organizations') or {}).get('urlKey', 'workspace')}"


def project_defaults(c: GraphQLContext, values: dict) -> dict:
    name = require((values.get("name") or "").strip(), "name must not be empty")
    slug = slug_id(name)
    return {"slugId": slug, "url": f"{org_url(c)}/project/{slug}", "creatorId": c.viewer_id, "state": "planned",
            "progress": 0.0, "scope": 0.0, "priority": 0, "sortOrder": 0.0, "color": "#bec2c8", "icon": None}


def milestone_defaults(c: GraphQLContext, values: dict) -> dict:
    require((values.get("name") or "").strip(), "name must not be empty")
    find(c.state, "Project", require(values.get("projectId"), "projectId is required"))
    siblings = c.state.rows("project_milestones", projectId=values.get("projectId"))
    return {"sortOrder": float(len(siblings)), "status": "unstarted", "progress": 0.0}


def moment(value: object, field: str) -> datetime:
    """A DateTime argument as an instant (a date alone is its midnight in UTC), or Linear's
    validation error: the schema's scalar lets any string through, a duration (`P1D`) included."""
    try:
        at = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise ApiError(f"Argument Validation Error: {field} must be a date-time") from None
    return at if at.tzinfo else at.replace(tzinfo=timezone.utc)


def cycle_defaults(c: GraphQLContext, values: dict) -> dict:
    team = find(c.state, "Team", require(values.get("teamId"), "teamId is required"))
    starts, ends = require(values.get("startsAt"), "startsAt is required"), require(values.get("endsAt"),
                                                                                   "endsAt is required")
    if moment(ends, "endsAt") <= moment(starts, "startsAt"):
        raise ApiError("Argument Validation Error: endsAt must be after startsAt")
    number = 1 + max((int(r.get("number") or 0) for r in c.state.rows("cycles", teamId=team["id"])), default=0)
    return {"number": float(number), "progress": 0.0, "completedAt": None}


def attachment_defaults(c: GraphQLContext, values: dict) -> dict:
    find(c.state, "Issue", require(values.get("issueId"), "issueId is required"))
    require(values.get("url"), "url is required")
    return {"creatorId": c.viewer_id, "metadata": {}, "groupBySource": False, "sourceType": "url", "subtitle": None}


def reaction_defaults(c: GraphQLContext, values: dict) -> dict:
    require(values.get("emoji"), "emoji is required")
    if not any(values.get(k) for k in ("commentId", "issueId", "projectUpdateId", "initiativeUpdateId")):
        raise ApiError("Argument Validation Error: a reaction needs a commentId or an issueId")
    return {"userId": c.viewer_id}


def favorite_defaults(c: GraphQLContext, values: dict) -> dict:
    return {"userId": c.viewer_id, "type": next((k[:-2] for k in ("issueId", "projectId", "cycleId", "labelId")
                                                 if values.get(k)), "custom"), "sortOrder": 0.0}


NEW_ROW_DEFAULTS.update({"Project": project_defaults, "ProjectMilestone": milestone_defaults,
                         "Cycle": cycle_defaults, "Attachment": attachment_defaults,
                         "Reaction": reaction_defaults, "Favorite": favorite_defaults})


def set_links(c: GraphQLContext, project: Row, values: dict) -> None:
    for field, (table, column, target) in PROJECT_LINKS.items():
        if values.get(field) is None:
            continue
        wanted = [find(c.state, target, ref)["id"] for ref in values[field]]
        for link in c.state.rows(table, projectId=project["id"]):
            c.state.delete(table, link)
        for ref in dict.fromkeys(wanted):
            c.state.insert(table, {"id": new_id(), "projectId": project["id"], column: ref})


@mutation.field("projectCreate")
def resolve_project_create(_, info, input, **__):
    c = ctx(info)
    if not input.get("teamIds"):
        raise ApiError("Argument Validation Error: a project needs at least one team")
    columns = {k: v for k, v in input.items() if k not in PROJECT_LINKS}
    row = new_row(c, "Project", columns)
    set_links(c, row, input)
    return entity_payload("project", row)


@mutation.field("projectUpdate")
def resolve_project_update(_, info, id, input):
    c = ctx(info)
    row = find(c.state, "Project", id)
    set_links(c, row, input)
    columns = {k: v for k, v in input.items() if k not in PROJECT_LINKS}
    return entity_payload("project", update_row(c, "Project", row, columns))


@mutation.field("attachmentLinkURL")
def resolve_attachment_link_url(_, info, issueId, url, title=None, id=None, **__):
    c = ctx(info)
    row = new_row(c, "Attachment", {"id": id, "issueId": find(c.state, "Issue", issueId)["id"], "url": url,
                                    "title": title or url})
    return entity_payload("attachment", row)


OBJECTS: list = []
