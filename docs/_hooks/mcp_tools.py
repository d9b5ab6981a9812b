"""MkDocs hook: a service page's list of its hosted MCP server's tools is written from the pack
itself at build time (its McpSurface: the vendor's tools table and the operations backing
them), so it cannot drift from what the replica serves. A page holds `<!-- mcp-tools:NAME -->`
where the list goes."""

from __future__ import annotations

import json
import re

MARKER = re.compile(r"<!-- mcp-tools:(\w+) -->")


def _backing(operation) -> str:
    """The pack operation a tool calls, as the page shows it."""
    from mock_services.mcp.operations import Choice, Each, GraphQL, Rest
    if isinstance(operation, Rest):
        return f"`{operation.method} {operation.path}`"
    if isinstance(operation, GraphQL):
        return "GraphQL `" + re.search(r"\{\s*(\w+)", operation.document).group(1) + "`"
    if isinstance(operation, Each):
        return f"each of `{operation.argument}`: {_backing(operation.operation)}"
    assert isinstance(operation, Choice)
    return "<br>".join(f"`{operation.argument}: {value}`: {_backing(picked)}"
                       for value, picked in operation.operations.items())


def tools(service: str) -> str:
    """The endpoint, the source of the tools, a row per backed tool, and the ones not backed."""
    from detour_core.pack import resolve
    from detour_core.registry import pack
    surface = pack(service).mcp
    table = json.loads(surface.tools.read_text())
    operations = resolve(surface.operations)
    names = [t["name"] for t in table["tools"]]
    rows = [f"| `{name}` | {_backing(operations[name])} |" for name in names if name in operations]
    lacking = [f"`{name}`" for name in names if name not in operations]
    endpoints = ", ".join(f"`https://{host}`" for host in surface.hosts)
    return "\n".join([
        f"Endpoint: {endpoints}. Tools: {table['source']} ({len(names)} published, {len(rows)} backed by the replica).",
        "", "| tool | answered by |", "|---|---|", *rows, "",
        "Published, not backed (the call answers that the replica lacks it): " + (", ".join(lacking) or "none") + "."])


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 - MkDocs' hook signature
    return MARKER.sub(lambda found: tools(found.group(1)), markdown)
