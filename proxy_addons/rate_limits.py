"""Each environment's share of the proxy: client connections open at once, requests a second,
and request body bytes in any one second (policy `max_connections`, `max_requests_per_second`,
`max_bytes_per_second`; defaults in detour_core.policy). A request beyond them is answered 429
with `Retry-After` before it reaches a replica or a host, and its record says which limit it met;
other environments go on as before.

Requests are paced, not let through in bursts: an environment's requests leave 1/N s apart
(N its requests a second), and one that comes sooner waits its turn. A second's worth waiting
is the most there may be; a request beyond it is over the rate. Pacing is what keeps a flood
from hurting its neighbours: a window that let N through at once would hand the shared proxy
N requests in the same instant, and a quiet environment's request would queue behind them.
An answer over a rate is held for a second (its `Retry-After`), and an environment's refusals
are paced as its requests are, so a program that ignores `Retry-After` waits instead of spending
the proxy's CPU on refusals, and many refused at once come back spread out, not together (held
answers cost no CPU, only a pending flow).

Counts are per proxy process: with several workers (SO_REUSEPORT) an environment may get up
to a worker's share in each.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict, deque
from collections.abc import Hashable
from dataclasses import dataclass

from mitmproxy import http

from detour_core.policy import (
    DEFAULT_MAX_BYTES_PER_SECOND,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_RPS,
    Policy,
)
from proxy_addons.env_auth import ENV_KEY
from proxy_addons.policies import POLICY_KEY
from proxy_addons.request_limits import declared_size
from proxy_addons.verdict import METADATA_KEY, json_response

WINDOW_S = 1.0


@dataclass(frozen=True)
class OverLimit:
    reason: str
    paced: bool  # over a rate: its answer is held back (`_refusal_wait`); over the connections: at once


def requests_per_second(policy: Policy) -> int:
    return policy.max_requests_per_second or DEFAULT_MAX_RPS


class RateLimits:
    def __init__(self) -> None:
        self.connections: dict[str, set[Hashable]] = defaultdict(set)
        self.next_turn: dict[str, float] = {}  # when each environment's next request may leave
        self.next_refusal: dict[str, float] = {}  # when its next refusal over a rate may be answered
        self.recent: dict[str, deque[tuple[float, int]]] = defaultdict(deque)  # (when, body bytes) per body
        self.recent_bytes: dict[str, int] = defaultdict(int)  # the sum of each one's `recent`, kept as it changes

    def _over_connections(self, client: Hashable, env_id: str, policy: Policy) -> str | None:
        held, limit = self.connections[env_id], policy.max_connections or DEFAULT_MAX_CONNECTIONS
        if client not in held and len(held) >= limit:
            return f"more than {limit} connections open at once"
        return None

    def _over_bytes(self, env_id: str, size: int, policy: Policy) -> str | None:
        """Whether this body would take the environment's last second of request bytes over its rate."""
        now, window = time.monotonic(), self.recent.get(env_id)
        while window and window[0][0] <= now - WINDOW_S:
            self.recent_bytes[env_id] -= window.popleft()[1]
        if not window:  # no body in the last second: the environment's entries go
            self.recent.pop(env_id, None)
            self.recent_bytes.pop(env_id, None)
            return None
        rate = policy.max_bytes_per_second or DEFAULT_MAX_BYTES_PER_SECOND
        if self.recent_bytes[env_id] + size > rate:
            return f"more than {rate} request body bytes in one second"
        return None

    def _take_turn(self, env_id: str, policy: Policy) -> float | None:
        """Seconds this request waits for its turn, the turn taken; None when a second's worth of
        the environment's requests already wait (over the rate)."""
        now, interval = time.monotonic(), 1 / requests_per_second(policy)
        turn = max(now, self.next_turn.get(env_id, now))
        if turn - now > WINDOW_S - interval / 2:  # its turn is not among the next second's N
            return None
        self.next_turn[env_id] = turn + interval
        return turn - now

    def _refusal_wait(self, env_id: str, policy: Policy) -> float:
        """Seconds a refusal over a rate is held: a second, and 1/N after the environment's refusal
        before it, so that refusals reach the shared proxy spread out as its requests do."""
        now = time.monotonic()
        answer = max(now + WINDOW_S, self.next_refusal.get(env_id, now))
        self.next_refusal[env_id] = answer + 1 / requests_per_second(policy)
        return answer - now

    def admit(self, env_id: str, client: Hashable, policy: Policy, size: int) -> float | OverLimit:
        """Seconds the request waits for its turn (the turn taken, its bytes counted), or the limit
        it is over (nothing taken). `client`: its connection, mitmproxy's or the fast path's."""
        if reason := self._over_connections(client, env_id, policy):
            return OverLimit(reason, paced=False)
        wait = None if (reason := self._over_bytes(env_id, size, policy)) else self._take_turn(env_id, policy)
        if wait is None:
            return OverLimit(reason or f"more than {requests_per_second(policy)} requests in one second", paced=True)
        self.connections[env_id].add(client)
        if size:
            self.recent[env_id].append((time.monotonic(), size))
            self.recent_bytes[env_id] += size
        return wait

    async def requestheaders(self, flow: http.HTTPFlow) -> None:
        env_id, verdict = flow.metadata.get(ENV_KEY), flow.metadata.get(METADATA_KEY)
        if flow.response or not env_id or verdict is None or verdict.decision == "denied":
            return
        policy: Policy = flow.metadata.get(POLICY_KEY) or Policy()
        admitted = self.admit(env_id, flow.client_conn, policy, declared_size(flow) or 0)
        if isinstance(admitted, OverLimit):
            if admitted.paced:
                await asyncio.sleep(self._refusal_wait(env_id, policy))
            return self._refuse(flow, admitted.reason)
        if admitted:
            await asyncio.sleep(admitted)

    @staticmethod
    def _refuse(flow: http.HTTPFlow, reason: str) -> None:
        verdict = flow.metadata[METADATA_KEY]
        flow.request.stream = False  # a large upload RequestLimits let stream: answered, it is not sent
        verdict.decision, verdict.service = "denied", None
        verdict.reason = f"rate limit: {reason}"
        flow.response = json_response(429, "denied", {"error": "rate_limited", "reason": verdict.reason},
                                      **{"Retry-After": "1"})

    def client_disconnected(self, client: Hashable) -> None:
        for held in self.connections.values():
            held.discard(client)
