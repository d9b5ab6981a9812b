"""Which of the Box replica's REST operations backs each tool of Box's hosted MCP server
(`https://mcp.box.com`); the tools are in spec/mcp_tools.json. A tool not named here (uploads,
Box AI) answers that the replica does not back it."""

from __future__ import annotations

from mock_services.mcp.operations import Arguments, Operation, Rest

API = "/2.0"


def _searching(kind: str, **fixed: str):
    """A search tool's arguments as `GET /search`'s, for one kind of item."""
    def prepare(arguments: Arguments) -> Arguments:
        return {**arguments, "type": kind, **fixed}
    return prepare


def _new_folder(arguments: Arguments) -> Arguments:
    return {"name": arguments["name"], "parent": {"id": arguments["parent_folder_id"]}}


OPERATIONS: dict[str, Operation] = {
    "who_am_i": Rest("GET", API + "/users/me"),
    "search_files_keyword": Rest("GET", API + "/search", prepare=_searching("file")),
    "search_folders_by_name": Rest("GET", API + "/search", rename={"folder_name": "query"},
                                   prepare=_searching("folder", content_types="name")),
    "list_folder_content_by_folder_id": Rest("GET", API + "/folders/{folder_id}/items"),
    "get_file_details": Rest("GET", API + "/files/{file_id}"),
    "get_folder_details": Rest("GET", API + "/folders/{folder_id}"),
    "get_file_content": Rest("GET", API + "/files/{file_id}/content", follow=True),
    "create_folder": Rest("POST", API + "/folders", prepare=_new_folder),
}
