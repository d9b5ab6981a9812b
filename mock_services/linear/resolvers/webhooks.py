"""What a new webhook is beyond its input: enabled, its creator, and a signing secret Linear makes
where the input gives none (readable on the Webhook, as Linear's `secret` field is)."""

from __future__ import annotations

from mock_services import clock
from mock_services.graphql.context import GraphQLContext
from mock_services.linear.mutations import NEW_ROW_DEFAULTS, require


def webhook_defaults(c: GraphQLContext, values: dict) -> dict:
    require(values.get("url"), "url is required")
    require(values.get("resourceTypes"), "resourceTypes is required")
    return {"enabled": True, "creatorId": c.viewer_id, "allPublicTeams": not values.get("teamId"),
            "secret": "lin_wh_" + clock.token_hex(20), "label": None, "teamIds": None}


NEW_ROW_DEFAULTS["Webhook"] = webhook_defaults
