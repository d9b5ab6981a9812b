"""Which of the Drive replica's REST operations backs each tool of Google's Drive MCP server
(`https://drivemcp.googleapis.com/mcp/v1`); the tools are in spec/mcp_tools.json, in Google's
camelCase fields. A tool not named here (download_file_content: bytes) answers that the
replica does not back it."""

from __future__ import annotations

from mock_services.mcp.operations import Arguments, Operation, Rest

FILES = "/drive/v3/files"


def _new_file(arguments: Arguments) -> Arguments:
    made = {"name": arguments["title"], **({"mimeType": arguments["mimeType"]} if "mimeType" in arguments else {})}
    return {**made, **({"parents": [arguments["parentId"]]} if "parentId" in arguments else {})}


OPERATIONS: dict[str, Operation] = {
    "search_files": Rest("GET", FILES, rename={"query": "q", "pageSize": "pageSize"}),
    "get_file_metadata": Rest("GET", FILES + "/{fileId}"),
    "get_file_permissions": Rest("GET", FILES + "/{fileId}/permissions"),
    "read_file_content": Rest("GET", FILES + "/{fileId}", prepare=lambda arguments: {**arguments, "alt": "media"}),
    "create_file": Rest("POST", FILES, prepare=_new_file),
}
