"""Which of the HubSpot replica's REST operations backs each tool of HubSpot's remote MCP server
(`https://mcp.hubspot.com`); the tools are in spec/mcp_tools.json. An object type is named as
the tools name it (`deals`), the path as the API has it (`0-3`). A tool not named here (owners,
property definitions, the user's details) answers that the replica does not back it."""

from __future__ import annotations

from mock_services.mcp.operations import Arguments, Choice, Each, Operation, Rest

OBJECTS = "/crm/v3/objects/{objectType}"
TYPE_IDS = {"deals": "0-3"}  # the replica serves deals at their object type id, as HubSpot's own spec does


def _typed(arguments: Arguments) -> Arguments:
    kind = arguments["objectType"]
    return {**arguments, "objectType": TYPE_IDS.get(kind, kind)}


OPERATIONS: dict[str, Operation] = {
    "search_crm_objects": Rest("POST", OBJECTS + "/search", prepare=_typed),
    "get_crm_objects": Each("objectIds", Rest("GET", OBJECTS + "/{objectId}", prepare=_typed), item="objectId"),
    "manage_crm_objects": Choice("action", {"create": Rest("POST", OBJECTS, prepare=_typed),
                                            "update": Rest("PATCH", OBJECTS + "/{objectId}", prepare=_typed)}),
}
