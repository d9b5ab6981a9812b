"""The viewer, the organization, and what the generic resolvers cannot know about users."""

from __future__ import annotations

from ariadne import ObjectType

from mock_services.graphql.context import ctx
from mock_services.linear.model import find
from mock_services.linear.resolvers.roots import query

user = ObjectType("User")


@query.field("viewer")
def resolve_viewer(_, info):
    return find(ctx(info).state, "User", ctx(info).viewer_id)


@query.field("organization")
def resolve_organization(_, info):
    return ctx(info).state.first("organizations") or {}


@user.field("isMe")
def resolve_is_me(row, info):
    return row["id"] == ctx(info).viewer_id


OBJECTS = [user]
