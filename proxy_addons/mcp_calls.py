"""Name what a request to a vendor's hosted MCP server asks: its JSON-RPC method and, for
`tools/call`, the tool. The record says it (`mcp_call`), the assertion language reads it from
there (`requests` rows' `tool`), and a fault can aim at a tool. Read only: the request goes on
as it came; its arguments are in the record's body only where the policy captures bodies,
redacted like any body. A request whose answer is a stream that stays open is marked so: the
in-process replicas serve it from their loopback server (as WebSockets), and it is streamed.
"""

from __future__ import annotations

import json
from typing import Any

from mitmproxy import http

from detour_core.audit import McpCall
from detour_core.registry import pack
from proxy_addons.verdict import METADATA_KEY

STREAM_KEY = "detour_mcp_stream"  # the flow holds a stream open: served from the loopback server, streamed


def mcp_call(body: Any) -> McpCall | None:
    """A JSON-RPC message's method and tool (a batch's first message: clients send one at a time)."""
    message = body[0] if isinstance(body, list) and body else body
    if not isinstance(message, dict) or not isinstance(message.get("method"), str):
        return None
    params = message.get("params")
    tool = params.get("name") if message["method"] == "tools/call" and isinstance(params, dict) else None
    return McpCall(method=message["method"], tool=tool if isinstance(tool, str) else None)


def holds_a_stream(flow: http.HTTPFlow, legacy: bool) -> bool:
    """A request whose answer is a stream that stays open: Streamable HTTP's GET, and the legacy
    SSE transport's stream and the posts answered on it (they must reach the process holding it)."""
    return legacy or flow.request.method == "GET"


class McpCalls:
    def request(self, flow: http.HTTPFlow) -> None:
        verdict = flow.metadata.get(METADATA_KEY)
        if flow.response or flow.error or verdict is None or verdict.decision != "routed" or not verdict.service:
            return
        surface = pack(verdict.service).mcp
        at = f"{verdict.host}{verdict.path}"
        legacy = surface is not None and any(at.startswith(e) for e in surface.sse)
        if surface is None or not (legacy or any(at.startswith(e) for e in surface.hosts)):
            return
        if holds_a_stream(flow, legacy):
            flow.metadata[STREAM_KEY] = True
        try:
            body = json.loads(flow.request.get_text(strict=False) or "null")
        except ValueError:
            return
        verdict.mcp_call = mcp_call(body)

    def responseheaders(self, flow: http.HTTPFlow) -> None:
        """An event stream goes to the client as it comes (mitmproxy would wait for its end)."""
        response = flow.response
        if flow.metadata.get(STREAM_KEY) and response is not None and not response.stream \
                and response.headers.get("content-type", "").startswith("text/event-stream"):
            response.stream = True
