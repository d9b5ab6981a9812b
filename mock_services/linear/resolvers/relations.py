"""Issue relations (blocks, duplicate, related, similar)."""

from __future__ import annotations

from ariadne import ObjectType

from mock_services.linear.context import ctx, deleted, new_id, now_iso, payload
from mock_services.linear.errors import LinearError
from mock_services.linear.pagination import connection
from mock_services.linear.resolvers.issues import find_issue, issue
from mock_services.linear.resolvers.roots import mutation

relation = ObjectType("IssueRelation")


@mutation.field("issueRelationCreate")
def resolve_relation_create(_, info, input):
    c = ctx(info)
    source, target = find_issue(info, input["issueId"]), find_issue(info, input["relatedIssueId"])
    if source["id"] == target["id"]:
        raise LinearError("Argument Validation Error: an issue cannot relate to itself")
    if c.state.first("issue_relations", issueId=source["id"], relatedIssueId=target["id"], type=input["type"]):
        raise LinearError("This relation already exists")
    now = now_iso()
    row = c.state.insert("issue_relations", {
        "id": input.get("id") or new_id(), "issueId": source["id"], "relatedIssueId": target["id"],
        "type": input["type"], "issueTitle": source.get("title"), "relatedIssueTitle": target.get("title"),
        "createdAt": now, "updatedAt": now})
    return payload("issueRelation", row)


@mutation.field("issueRelationDelete")
def resolve_relation_delete(_, info, id):
    c = ctx(info)
    c.state.delete("issue_relations", c.get("issue_relations", "IssueRelation", id))
    return deleted(id)


@issue.field("relations")
def resolve_issue_relations(row, info, **page):
    return connection(ctx(info).state.rows("issue_relations", issueId=row["id"]), **page)


@relation.field("issue")
def resolve_relation_issue(row, info):
    return ctx(info).get("issues", "Issue", row["issueId"])


@relation.field("relatedIssue")
def resolve_relation_related(row, info):
    return ctx(info).get("issues", "Issue", row["relatedIssueId"])


OBJECTS = [relation]
