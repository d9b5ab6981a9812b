"""The MCP row of `make bench`: a tool call to GitHub's hosted MCP server through the proxy
against the same operation over REST (goal: at most 1.5x its latency). Both over HTTPS through
the proxy on one kept connection each; the MCP call is one JSON-RPC `tools/call` POST (the
server keeps no session, so that is the whole of a call once a client has initialized), the two
alternating so that whatever else the machine does weighs on both alike."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import httpx

from bench.stats import percentile
from certs.authority import CertificateAuthority
from detour.stack import Stack
from detour_core.credentials import secret_for
from detour_core.paths import StatePaths
from mock_services.store import EnvironmentStore

CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
    "name": "issue_read", "arguments": {"method": "get", "owner": "acme", "repo": "api", "issue_number": 1}}}


def _timed(send: Callable[[], httpx.Response]) -> float:
    began = time.perf_counter()
    answer = send()
    assert answer.status_code == 200, answer.text[:300]
    return (time.perf_counter() - began) * 1000


def bench_mcp_tool_call(state: StatePaths, stack: Stack, store: EnvironmentStore, count: int = 100) -> None:
    env_id = store.create("github_default").env_id
    token = store.credentials(env_id).variables["GITHUB_TOKEN"]
    proxy = stack.info.access(env_id, secret_for(state, env_id)).url()
    bundle = str(CertificateAuthority(state).ensure().bundle)
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    with httpx.Client(proxy=proxy, verify=bundle, timeout=30, headers=headers) as client:
        calls = (lambda: client.get("https://api.github.com/repos/acme/api/issues/1"),
                 lambda: client.post("https://api.githubcopilot.com/mcp/", json=CALL))
        for call in calls:  # the connections and the first calls' imports are not what is measured
            _timed(call)
        pairs = [(_timed(calls[0]), _timed(calls[1])) for _ in range(count)]  # alternating: the same load on both
    rest, mcp = [p[0] for p in pairs], [p[1] for p in pairs]
    ratio = statistics.median(mcp) / statistics.median(rest)
    for name, latencies in (("REST GET /repos/acme/api/issues/1", rest), ("MCP issue_read (method get)", mcp)):
        print(f"  GitHub {name:<34} median {statistics.median(latencies):6.1f} ms   "
              f"p90 {percentile(latencies, 90):6.1f} ms   (n={count})")
    print(f"  MCP over REST, medians: {ratio:4.2f}x   (goal: at most 1.5x)")
