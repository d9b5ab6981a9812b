"""Faults on demand (detour_core.faults): the first fault of a request's policy that hits it
decides what goes wrong, and the record names it. A status fault to a replicated service is
answered in that service's own error shape (its pack's `faults` hook), elsewhere in a plain
JSON one. A fault's counts (requests it matched, requests it hit) live in the environment's own
state, so every proxy worker of a stack counts the same requests: `times=1` hits once, and a
seeded probability hits the same places in every environment of that policy.

Runs after routing, the limits and the secrets (a fault never lets through what they refused)
and before the in-process replicas answer, so `latency` delays the request and `lost_answer`
lets the replica change state before the answer is dropped.
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any
from urllib.parse import parse_qsl

from mitmproxy import http

from detour_core.errors import DetourError
from detour_core.faults import HANG_S, Fault, FaultAnswer, count_key, draw, fires
from detour_core.pack import resolve
from detour_core.policy import Policy
from detour_core.paths import StatePaths
from detour_core.registry import pack
from mock_services.store import EnvironmentStore
from proxy_addons.env_auth import ENV_KEY
from proxy_addons.policies import POLICY_KEY
from proxy_addons.verdict import METADATA_KEY

LOSE_KEY = "detour.fault_lose_answer"
COUNTS_KEY = "fault_counts"  # in the environment's meta: {fault's count key: [matched, hit]}
HANG_POLL_S = 0.1
STATUS = {"rate_limited": 429}


def fields(request: http.Request) -> tuple[dict[str, Any], str | None]:
    """A request's body fields (JSON object or form) and its GraphQL operation's name."""
    text = request.get_text(strict=False) if request.raw_content and not request.stream else ""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    found: Any = {}
    if kind == "application/x-www-form-urlencoded":
        found = dict(parse_qsl(text or ""))
    elif text:
        try:
            found = json.loads(text)
        except ValueError:
            found = {}
    found = found if isinstance(found, dict) else {}
    operation = found.get("operationName")
    return found, operation if isinstance(operation, str) else None


def answer(service: str | None, status: int) -> http.Response:
    """The service's own error for a status fault; a plain one for a host detour does not replicate."""
    hook = pack(service).faults if service else None
    made: FaultAnswer = resolve(hook)(status) if hook else FaultAnswer(status, {"error": "injected_fault"})
    return http.Response.make(made.status, json.dumps(made.body).encode(),
                              {"Content-Type": "application/json", **made.headers})


async def hang(flow: http.HTTPFlow) -> None:
    """No answer until the client gives up (its connection closes) or HANG_S pass; then none."""
    waited = 0.0
    while waited < HANG_S and flow.client_conn.timestamp_end is None:
        await asyncio.sleep(HANG_POLL_S)
        waited += HANG_POLL_S
    flow.kill()


class Faults:
    def __init__(self) -> None:
        self.store: EnvironmentStore | None = None

    def counted(self, env_id: str, number: int, fault: Fault) -> int | None:
        """The place of this matching request among those the fault matched if the fault hits it,
        else None; counted in one write transaction of the environment's state (across workers)."""
        self.store = self.store or EnvironmentStore(StatePaths.default())
        key = count_key(number, fault)
        try:
            with self.store.open(env_id, write=True) as state:
                counts = state.meta(COUNTS_KEY) or {}
                seen, fired = counts.get(key, (0, 0))
                hit = fires(number, fault, seen, fired)
                state.set_meta(COUNTS_KEY, counts | {key: (seen + 1, fired + hit)})
        except DetourError:
            return None  # no such environment: its request is answered as any other
        return seen if hit else None

    async def request(self, flow: http.HTTPFlow) -> None:
        verdict, policy = flow.metadata.get(METADATA_KEY), flow.metadata.get(POLICY_KEY) or Policy()
        if flow.response or flow.error or verdict is None or verdict.decision not in ("routed", "allowed") \
                or not policy.faults:
            return
        env_id, request = flow.metadata.get(ENV_KEY) or "", flow.request  # routing has repointed its path:
        body, operation = fields(request)                                 # the verdict keeps the one sent
        operation = verdict.mcp_call.tool if verdict.mcp_call else operation  # an MCP call's: its tool
        for number, fault in enumerate(policy.faults, 1):
            if not fault.hits(request.method, verdict.host, verdict.path, body, operation):
                continue
            nth = await asyncio.to_thread(self.counted, env_id, number, fault)
            if nth is not None:
                verdict.fault = fault.label(number)
                await self.apply(flow, fault, draw(number, fault, nth))
                return

    @staticmethod
    async def apply(flow: http.HTTPFlow, fault: Fault, chance: random.Random) -> None:
        verdict = flow.metadata[METADATA_KEY]
        if fault.kind in ("rate_limited", "error"):
            flow.response = answer(verdict.service if verdict.decision == "routed" else None,
                                   STATUS.get(fault.kind, fault.status))
        elif fault.kind == "latency":
            await asyncio.sleep(fault.latency_s(chance))
        elif fault.kind == "hang":
            await hang(flow)
        elif fault.kind == "drop":
            flow.kill()
        else:  # lost_answer: served, then the answer goes nowhere
            flow.metadata[LOSE_KEY] = True

    def response(self, flow: http.HTTPFlow) -> None:
        if flow.metadata.pop(LOSE_KEY, False):
            flow.kill()
