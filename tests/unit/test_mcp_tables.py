"""Every hosted MCP server's tables (mock_services/mcp): the vendor's tools load as the SDK's
`Tool`, their schemas are JSON Schema, each operation backs a tool the vendor publishes (a typo
would leave the tool unbacked and the operation unreachable); a declared output is an object
(`structuredContent` is one)."""

from __future__ import annotations

import jsonschema
import pytest

from detour_core.pack import resolve
from detour_core.registry import packs
from mock_services.mcp.server import published_tools

SERVED = [pack for pack in packs() if pack.mcp is not None]


def test_the_vendors_servers_are_served():
    assert {pack.name for pack in SERVED} >= {"github", "linear", "slack", "jira", "stripe", "notion", "box", "gmail",
                                               "calendar", "drive", "hubspot"}


@pytest.mark.parametrize("pack", SERVED, ids=lambda pack: pack.name)
def test_a_servers_tables_agree(pack):
    tools = {tool.name: tool for tool in published_tools(pack.mcp.tools)}
    operations = resolve(pack.mcp.operations)
    assert set(operations) <= set(tools), set(operations) - set(tools)
    for tool in tools.values():
        jsonschema.validators.validator_for(tool.inputSchema).check_schema(tool.inputSchema)
        if tool.outputSchema is not None:
            jsonschema.validators.validator_for(tool.outputSchema).check_schema(tool.outputSchema)
            assert tool.outputSchema.get("type") == "object"  # structuredContent is an object
