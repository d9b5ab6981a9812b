"""Comments: commentCreate and a comment's relations."""

from __future__ import annotations

import json

from ariadne import ObjectType

from mock_services.linear.context import changed, ctx, deleted, new_id, now_iso, payload
from mock_services.linear.errors import LinearError
from mock_services.linear.pagination import connection
from mock_services.linear.resolvers.issues import find_issue
from mock_services.linear.resolvers.roots import mutation, query

comment = ObjectType("Comment")


@mutation.field("commentCreate")
def resolve_comment_create(_, info, input):
    c = ctx(info)
    body = (input.get("body") or "").strip()
    if not body:
        raise LinearError("Argument Validation Error: body must not be empty")
    parent = find_issue(info, input["issueId"])
    now = now_iso()
    doc = {"type": "doc", "content": [{"type": "paragraph", "content": [{"type": "text", "text": body}]}]}
    row = c.state.insert("comments", {
        "id": input.get("id") or new_id(),
        "issueId": parent["id"],
        "userId": c.viewer_id,
        "body": body,
        "bodyData": json.dumps(doc),
        "reactionData": {},
        "editedAt": None,
        "archivedAt": None,
        "createdAt": now,
        "updatedAt": now,
        "url": f"{parent.get('url', '')}#comment-{now}",
    })
    return payload("comment", row)


@mutation.field("commentUpdate")
def resolve_comment_update(_, info, id, input):
    c = ctx(info)
    row = c.get("comments", "Comment", id)
    body = (input.get("body") or "").strip()
    if not body:
        raise LinearError("Argument Validation Error: body must not be empty")
    return payload("comment", c.state.update("comments", changed(row, {"body": body, "editedAt": now_iso()})))


@mutation.field("commentDelete")
def resolve_comment_delete(_, info, id):
    c = ctx(info)
    c.state.delete("comments", c.get("comments", "Comment", id))
    return deleted(id)


@query.field("comments")
def resolve_comments(_, info, filter=None, **page):
    c = ctx(info)
    return connection(c.filters.apply("comments", c.state.rows("comments"), filter), **page)


@query.field("comment")
def resolve_comment(_, info, id=None, hash=None):
    return ctx(info).get("comments", "Comment", id)


@comment.field("issue")
def resolve_comment_issue(row, info):
    return ctx(info).get("issues", "Issue", row.get("issueId"))


@comment.field("user")
def resolve_comment_user(row, info):
    return ctx(info).maybe("users", row.get("userId"))


OBJECTS = [comment]
