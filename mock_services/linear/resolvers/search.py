"""Issue search: searchIssues (term) and the older issueSearch (query), over titles, descriptions,
identifiers and, when asked, comments."""

from __future__ import annotations

from mock_services.graphql.context import GraphQLContext, ctx
from mock_services.graphql.default_resolver import page
from mock_services.linear.model import find
from mock_services.linear.resolvers.roots import query
from mock_services.store import Row


def matching(c: GraphQLContext, term: str, include_comments: bool = False) -> list[Row]:
    words = [w.lower() for w in (term or "").split()]
    found = []
    for issue in c.state.rows("issues"):
        text = " ".join(str(issue.get(k) or "") for k in ("identifier", "title", "description")).lower()
        if include_comments:
            text += " ".join(str(r.get("body") or "") for r in c.state.rows("comments", issueId=issue["id"])).lower()
        if all(w in text for w in words):
            found.append(issue)
    return found


@query.field("searchIssues")
def resolve_search_issues(_, info, term, includeComments=False, teamId=None, **args):
    c = ctx(info)
    rows = matching(c, term, bool(includeComments))
    if teamId:
        rows = [r for r in rows if r.get("teamId") == find(c.state, "Team", teamId)["id"]]
    result = page(info, "Issue", rows, args)
    total = page(info, "Issue", rows, {**args, "first": len(rows) or 1, "after": None, "last": None, "before": None})
    return {**result, "totalCount": float(len(total["nodes"])), "archivePayload": {}}


@query.field("issueSearch")
def resolve_issue_search(_, info, query=None, **args):
    return page(info, "Issue", matching(ctx(info), query or ""), args)


@query.field("issueVcsBranchSearch")
def resolve_branch_search(_, info, branchName):
    return ctx(info).state.first("issues", branchName=branchName)


OBJECTS: list = []
