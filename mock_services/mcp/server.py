"""A pack's MCP server: the official SDK's low-level `Server`, its tools the vendor's published
table, each call answered by the pack operation that backs the tool (operations.py).

The SDK does the protocol (initialize, version negotiation, tools/list, tools/call, input
validation against each tool's schema); this file only says what a tool is and who answers it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path

import httpx
import mcp.types as types
from mcp.server.lowlevel import Server
from starlette.requests import Request

from detour_core.pack import ServicePack, resolve
from mock_services.mcp.operations import Caller, Operation, text

FORWARDED = ("authorization",)  # what the tool's operation sees of the MCP request: who is calling


@cache
def published_tools(table: Path) -> tuple[types.Tool, ...]:
    """The vendor's tools as its server lists them (the pack's generated table)."""
    return tuple(types.Tool(**entry) for entry in json.loads(table.read_text())["tools"])


def lacking(service: str, name: str) -> types.CallToolResult:
    """The vendor publishes the tool; the replica's state does not back it."""
    return types.CallToolResult(isError=True, content=[types.TextContent(
        type="text", text=f"tool {name} is not available: detour's {service} replica does not back it")])


def caller_for(request: Request, service: str) -> Caller:
    """The acting person's way into the pack's own router, in this process."""
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=request.scope["app"]), base_url="http://replica")
    prefix = f"/api/env/{request.path_params['env_id']}/services/{service}"
    return Caller(client, prefix, {k: v for k, v in request.headers.items() if k in FORWARDED})


def build_server(pack: ServicePack) -> Server:
    """One server per pack, shared by its requests (each request is its own stateless session)."""
    assert pack.mcp is not None
    tools = published_tools(pack.mcp.tools)
    known = {tool.name for tool in tools}
    operations: Mapping[str, Operation] = resolve(pack.mcp.operations)
    server: Server = Server(f"detour-{pack.name}")

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        return list(tools)

    @server.call_tool()
    async def call_tool(name: str, arguments: dict) -> types.CallToolResult:
        operation = operations.get(name)
        if operation is None:
            if name in known:
                return lacking(pack.name, name)
            raise ValueError(f"unknown tool: {name}")
        caller = caller_for(server.request_context.request, pack.name)
        async with caller.client:
            answer = await operation.run(caller, arguments)
        return types.CallToolResult(isError=not answer.ok,
                                    content=[types.TextContent(type="text", text=text(answer.body))])

    return server
