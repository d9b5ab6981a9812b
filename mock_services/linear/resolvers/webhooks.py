"""A new webhook: enabled, its creator, and a signing secret Linear makes where the input gives
none (readable on the Webhook, as Linear's `secret` field is); from its creation the
environment sends its events over HTTP (mock_services/linear/events.py)."""

from __future__ import annotations

from typing import Any

from mock_services import clock
from mock_services.graphql.context import GraphQLContext, ctx
from mock_services.linear import events
from mock_services.linear.mutations import NEW_ROW_DEFAULTS, entity_payload, new_row, require
from mock_services.linear.resolvers.roots import mutation


def webhook_defaults(c: GraphQLContext, values: dict) -> dict:
    require(values.get("url"), "url is required")
    require(values.get("resourceTypes"), "resourceTypes is required")
    return {"enabled": True, "creatorId": c.viewer_id, "allPublicTeams": not values.get("teamId"),
            "secret": "lin_wh_" + clock.token_hex(20), "label": None, "teamIds": None}


NEW_ROW_DEFAULTS["Webhook"] = webhook_defaults


@mutation.field("webhookCreate")
def resolve_webhook_create(_: Any, info: Any, input: dict) -> dict:
    c = ctx(info)
    row = new_row(c, "Webhook", input)
    events.webhook_made(c.state, row["id"])
    return entity_payload("webhook", row)
