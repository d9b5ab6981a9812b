"""Comments: commentCreate (threads by parentId), commentUpdate, commentDelete."""

from __future__ import annotations

import json

from ariadne import ObjectType

from mock_services.graphql.context import ctx
from mock_services.graphql.errors import ApiError
from mock_services.linear.mutations import delete_row, entity_payload, new_row, require, update_row
from mock_services.linear.model import now_iso
from mock_services.linear.model import find
from mock_services.linear.resolvers.roots import mutation


def body_data(body: str) -> str:
    """A comment's body as Linear's ProseMirror JSON (one paragraph of its text)."""
    return json.dumps({"type": "doc", "content": [{"type": "paragraph", "content": [{"type": "text", "text": body}]}]})


@mutation.field("commentCreate")
def resolve_comment_create(_, info, input):
    c = ctx(info)
    body = require((input.get("body") or "").strip(), "body must not be empty")
    if not input.get("issueId") and not input.get("parentId"):
        raise ApiError("Argument Validation Error: a comment needs an issueId or a parentId")
    parent = find(c.state, "Comment", input["parentId"]) if input.get("parentId") else None
    issue = find(c.state, "Issue", input.get("issueId") or parent.get("issueId"))
    row = new_row(c, "Comment", {"id": input.get("id"), "issueId": issue["id"], "userId": c.viewer_id,
                                 "parentId": parent["id"] if parent else None, "body": body,
                                 "reactionData": [], "editedAt": None,
                                 "url": f"{issue.get('url', '')}#comment-{now_iso()}"})
    return entity_payload("comment", row)


@mutation.field("commentUpdate")
def resolve_comment_update(_, info, id, input, **__):
    c = ctx(info)
    row = find(c.state, "Comment", id)
    body = require((input.get("body") or "").strip(), "body must not be empty")
    return entity_payload("comment", update_row(c, "Comment", row, {"body": body, "editedAt": now_iso()}))


@mutation.field("commentDelete")
def resolve_comment_delete(_, info, id):
    return delete_row(ctx(info), "Comment", id)


comment = ObjectType("Comment")


@comment.field("bodyData")
def resolve_body_data(row, _info) -> str:
    """Derived from the body on every read, so the two never disagree (and a diff shows one change)."""
    return body_data(row.get("body") or "")


OBJECTS = [comment]
