"""The MCP rows of `make bench`: a tool call to a vendor's hosted MCP server through the proxy
against the same operation over REST (goal: at most 1.5x its latency), for GitHub's server and
Google Calendar's. Both over HTTPS through the proxy on one kept connection each; the MCP call
is one JSON-RPC `tools/call` POST in a session initialized beforehand (its Mcp-Session-Id sent
along, as a client sends it), the two alternating so that whatever else the machine does weighs
on both alike."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import NamedTuple

import httpx

from bench.stats import percentile
from certs.authority import CertificateAuthority
from detour.stack import Stack
from detour_core.credentials import secret_for
from detour_core.paths import StatePaths
from mock_services.store import EnvironmentStore

VERSION = "2025-06-18"
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}


class Row(NamedTuple):
    vendor: str
    template: str
    token: str        # the credential variable whose value is the bearer token
    rest: str         # a GET of the REST API
    server: str       # the hosted MCP server's endpoint
    tool: str
    arguments: dict


ROWS = (
    Row("GitHub", "github_default", "GITHUB_TOKEN", "https://api.github.com/repos/acme/api/issues/1",
        "https://api.githubcopilot.com/mcp/", "issue_read",
        {"method": "get", "owner": "acme", "repo": "api", "issue_number": 1}),
    Row("Calendar", "calendar_default", "GOOGLE_OAUTH_ACCESS_TOKEN",
        "https://www.googleapis.com/calendar/v3/calendars/primary/events/event_failed_rocket",
        "https://calendarmcp.googleapis.com/mcp/v1", "get_event", {"eventId": "event_failed_rocket"}),
)


def _timed(send: Callable[[], httpx.Response]) -> float:
    began = time.perf_counter()
    answer = send()
    assert answer.status_code == 200, answer.text[:300]
    return (time.perf_counter() - began) * 1000


def _pairs(client: httpx.Client, row: Row, count: int) -> tuple[list[float], list[float]]:
    """(REST latencies, MCP latencies), alternating, after a session is initialized."""
    session = client.post(row.server, json=INITIALIZE).headers["mcp-session-id"]
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": row.tool, "arguments": row.arguments}}
    in_session = {"Mcp-Session-Id": session, "MCP-Protocol-Version": VERSION}
    calls = (lambda: client.get(row.rest), lambda: client.post(row.server, json=call, headers=in_session))
    for send in calls:  # the connections and the first calls' imports are not what is measured
        _timed(send)
    pairs = [(_timed(calls[0]), _timed(calls[1])) for _ in range(count)]  # alternating: the same load on both
    return [p[0] for p in pairs], [p[1] for p in pairs]


def bench_mcp_tool_call(state: StatePaths, stack: Stack, store: EnvironmentStore, count: int = 100) -> None:
    bundle = str(CertificateAuthority(state).ensure().bundle)
    for row in ROWS:
        env_id = store.create(row.template).env_id
        headers = {"Authorization": f"Bearer {store.credentials(env_id).variables[row.token]}",
                   "Accept": "application/json, text/event-stream"}
        proxy = stack.info.access(env_id, secret_for(state, env_id)).url()
        with httpx.Client(proxy=proxy, verify=bundle, timeout=30, headers=headers) as client:
            rest, mcp = _pairs(client, row, count)
        for name, latencies in ((f"REST GET {row.rest.split('/', 3)[3][:30]}", rest), (f"MCP {row.tool}", mcp)):
            print(f"  {row.vendor:<8} {name:<38} median {statistics.median(latencies):6.1f} ms   "
                  f"p90 {percentile(latencies, 90):6.1f} ms   (n={count})")
        print(f"  {row.vendor:<8} MCP over REST, medians: {statistics.median(mcp) / statistics.median(rest):4.2f}x"
              f"   (goal: at most 1.5x)")
