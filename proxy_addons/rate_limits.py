"""Each environment's share of the proxy: client connections open at once, requests in any
one second, and request body bytes in any one second (policy `max_connections`,
`max_requests_per_second`, `max_bytes_per_second`; defaults in detour_core.policy). A request
beyond them is answered 429 with `Retry-After` before it reaches a replica or a host, and its
record says which limit it met; other environments go on as before. A request over the rate is
answered when the environment's window next has room (at most a second later), not at once:
a program that ignores `Retry-After` then waits instead of spending the proxy's CPU, which every
other environment shares, on refusals (held answers cost no CPU, only a pending flow).

Counts are per proxy process: with several workers (SO_REUSEPORT) an environment may get up
to a worker's share in each.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict, deque

from mitmproxy import connection, http

from detour_core.policy import (DEFAULT_MAX_BYTES_PER_SECOND, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_RPS, Policy)
from proxy_addons.env_auth import ENV_KEY
from proxy_addons.policies import POLICY_KEY
from proxy_addons.request_limits import declared_size
from proxy_addons.verdict import METADATA_KEY, json_response

WINDOW_S = 1.0


class RateLimits:
    def __init__(self) -> None:
        self.connections: dict[str, set[connection.Client]] = defaultdict(set)
        self.recent: dict[str, deque[tuple[float, int]]] = defaultdict(deque)  # (when, body bytes) per request

    def _exceeded(self, flow: http.HTTPFlow, env_id: str, policy: Policy) -> str | None:
        """Which limit this request would pass, if any; counts it otherwise."""
        held = self.connections[env_id]
        limit = policy.max_connections or DEFAULT_MAX_CONNECTIONS
        if flow.client_conn not in held and len(held) >= limit:
            return f"more than {limit} connections open at once"
        now, window = time.monotonic(), self.recent[env_id]
        while window and window[0][0] <= now - WINDOW_S:
            window.popleft()
        rps = policy.max_requests_per_second or DEFAULT_MAX_RPS
        if len(window) >= rps:
            return f"more than {rps} requests in one second"
        size = declared_size(flow) or 0
        rate = policy.max_bytes_per_second or DEFAULT_MAX_BYTES_PER_SECOND
        if window and sum(b for _, b in window) + size > rate:
            return f"more than {rate} request body bytes in one second"
        held.add(flow.client_conn)
        window.append((now, size))
        return None

    def _until_room(self, env_id: str) -> float:
        """Seconds until the environment's oldest request of the window leaves it."""
        window = self.recent[env_id]
        return min(WINDOW_S, max(0.0, window[0][0] + WINDOW_S - time.monotonic())) if window else 0.0

    async def requestheaders(self, flow: http.HTTPFlow) -> None:
        env_id, verdict = flow.metadata.get(ENV_KEY), flow.metadata.get(METADATA_KEY)
        if flow.response or not env_id or verdict is None or verdict.decision == "denied":
            return
        reason = self._exceeded(flow, env_id, flow.metadata.get(POLICY_KEY) or Policy())
        if reason:
            if "connections" not in reason:
                await asyncio.sleep(self._until_room(env_id))
            verdict.decision, verdict.service = "denied", None
            verdict.reason = f"rate limit: {reason}"
            flow.response = json_response(429, "denied", {"error": "rate_limited", "reason": verdict.reason},
                                          **{"Retry-After": "1"})

    def client_disconnected(self, client: connection.Client) -> None:
        for held in self.connections.values():
            held.discard(client)
