"""A pack's MCP server: the official SDK's low-level `Server`, its tools the vendor's published
table, each call answered by the pack operation that backs the tool (operations.py).

The SDK does the protocol (initialize, version negotiation, tools/list, tools/call, input
validation against each tool's schema); this file only says what a tool is and who answers it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib.metadata import version
from pathlib import Path
from urllib.parse import urlsplit

import jsonschema
import mcp.types as types
from mcp.server.lowlevel import Server
from starlette.requests import Request

from detour_core.pack import ServicePack, resolve
from mock_services.issued_tokens import Credentials
from mock_services.mcp.operations import Answer, Caller, Operation, text

FORWARDED = ("authorization",)  # what the tool's operation sees of the MCP request: who is calling


@cache
def published_tools(table: Path) -> tuple[types.Tool, ...]:
    """The vendor's tools as its server lists them (the pack's generated table)."""
    return tuple(types.Tool(**entry) for entry in json.loads(table.read_text())["tools"])


def failed(text: str) -> types.CallToolResult:
    return types.CallToolResult(isError=True, content=[types.TextContent(type="text", text=text)])


def lacking(service: str, name: str) -> types.CallToolResult:
    """The vendor publishes the tool; the replica's state does not back it."""
    return failed(f"tool {name} is not available: detour's {service} replica does not back it")


def result(answer: Answer, structured: bool) -> types.CallToolResult:
    """The answer as JSON text; where the vendor declares the tool's output (its `outputSchema`),
    also as `structuredContent`, as its server gives both."""
    content = [types.TextContent(type="text", text=text(answer.body))]
    if not answer.ok or not structured or not isinstance(answer.body, dict):
        return types.CallToolResult(isError=not answer.ok, content=content)
    return types.CallToolResult(content=content, structuredContent=answer.body)


@cache
def validator(table: Path, name: str) -> jsonschema.protocols.Validator:
    """The tool's input schema, checked once. The SDK's own check (`jsonschema.validate`) checks
    the schema itself against its metaschema on every call: a third of a call's time."""
    schema = next(tool.inputSchema for tool in published_tools(table) if tool.name == name)
    return jsonschema.validators.validator_for(schema)(schema)


def api_host(pack: ServicePack, request: Request) -> str:
    """The host a client of the pack's API names (its answers' URLs are built from it): its first
    named host; for a tenant's (Jira's `*.atlassian.net`), the one the acting person's
    credential variables name."""
    named = [entry.partition("/")[0] for entry in pack.hosts if not entry.startswith("*.")]
    if named or not pack.credentials:
        return named[0] if named else "localhost"
    with request.app.state.store.open(request.path_params["env_id"], service=pack.name) as state:
        variables: Credentials = resolve(pack.credentials)(state)
    urls = [urlsplit(value).hostname for value in variables.variables.values() if value.startswith("https://")]
    return urls[0] if urls and urls[0] else "localhost"


def caller_for(request: Request, pack: ServicePack) -> Caller:
    """The acting person's way into the pack's own router, in this process."""
    prefix = f"/api/env/{request.path_params['env_id']}/services/{pack.name}"
    headers = {k: v for k, v in request.headers.items() if k in FORWARDED}
    return Caller(request.scope["app"], prefix, {**headers, "host": api_host(pack, request)})


def offered(tools: tuple[types.Tool, ...], request: Request) -> set[str]:
    """The tools an endpoint serves: all, or at a read-only one (GitHub's `/mcp/readonly`,
    `/mcp/x/{toolset}/readonly`) those whose hints say they change nothing."""
    read_only = request.path_params.get("rest", "").rstrip("/").endswith("/readonly")
    return {tool.name for tool in tools if not read_only or (tool.annotations and tool.annotations.readOnlyHint)}


def build_server(pack: ServicePack) -> Server:
    """One server per pack, shared by its requests (each request is its own stateless session)."""
    assert pack.mcp is not None
    tools = published_tools(pack.mcp.tools)
    declared = {tool.name for tool in tools if tool.outputSchema is not None}
    operations: Mapping[str, Operation] = resolve(pack.mcp.operations)
    # A version given: the SDK would otherwise read its own package's metadata on every request.
    server: Server = Server(f"detour-{pack.name}", version=version("mcp"))

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        served = offered(tools, server.request_context.request)
        return [tool for tool in tools if tool.name in served]

    @server.call_tool(validate_input=False)  # validated here, against a validator made once
    async def call_tool(name: str, arguments: dict) -> types.CallToolResult:
        if name not in offered(tools, server.request_context.request):
            raise ValueError(f"unknown tool: {name}")
        if error := jsonschema.exceptions.best_match(validator(pack.mcp.tools, name).iter_errors(arguments)):
            return failed(f"Input validation error: {error.message}")
        operation = operations.get(name)
        if operation is None:
            return lacking(pack.name, name)
        answer = await operation.run(caller_for(server.request_context.request, pack), arguments)
        return result(answer, structured=name in declared)

    return server
