"""Issue relations (blocks, duplicate, related, similar): create refuses duplicates and self-links."""

from __future__ import annotations

from mock_services.graphql.context import ctx
from mock_services.graphql.errors import ApiError
from mock_services.linear.mutations import entity_payload, new_row
from mock_services.linear.model import find
from mock_services.linear.resolvers.roots import mutation


@mutation.field("issueRelationCreate")
def resolve_relation_create(_, info, input, **__):
    c = ctx(info)
    source, target = find(c.state, "Issue", input["issueId"]), find(c.state, "Issue", input["relatedIssueId"])
    if source["id"] == target["id"]:
        raise ApiError("Argument Validation Error: an issue cannot relate to itself")
    existing = c.state.rows("issue_relations", issueId=source["id"], relatedIssueId=target["id"], type=input["type"])
    if any(not r.get("archivedAt") for r in existing):  # a deleted one is archived, and does not count
        raise ApiError("This relation already exists")
    row = new_row(c, "IssueRelation", {"id": input.get("id"), "issueId": source["id"], "relatedIssueId": target["id"],
                                       "type": input["type"], "issueTitle": source.get("title"),
                                       "relatedIssueTitle": target.get("title")})
    return entity_payload("issueRelation", row)


OBJECTS: list = []
