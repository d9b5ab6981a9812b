"""Linear's error shape: GraphQL `errors` whose extensions carry a type and a message for people."""

from __future__ import annotations

from graphql import GraphQLError

from mock_services.graphql.errors import ApiError


def format_error(error: GraphQLError, debug: bool = False) -> dict:
    """The one place resolver exceptions become wire errors."""
    formatted = error.formatted
    original = error.original_error
    if isinstance(original, ApiError):
        formatted["extensions"] = {"type": original.type, "userPresentableMessage": str(original)}
    elif original is not None and not isinstance(original, GraphQLError):  # a bug, not bad input
        formatted["message"] = "Internal error"
        formatted["extensions"] = {"type": "internal error"}
    return formatted
