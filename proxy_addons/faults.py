"""Faults on demand (detour_core.faults): the first fault of a request's policy that hits it
decides what goes wrong, and the record names it. A status fault to a replicated service is
answered in that service's own error shape (its pack's `faults` hook), elsewhere in a plain
JSON one. Draws and counts are per proxy worker.

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

from detour_core.faults import HANG_S, Fault, FaultAnswer, FaultDraws
from detour_core.pack import resolve
from detour_core.policy import Policy
from detour_core.registry import pack
from proxy_addons.env_auth import ENV_KEY
from proxy_addons.policies import POLICY_KEY
from proxy_addons.verdict import METADATA_KEY

LOSE_KEY = "detour.fault_lose_answer"
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
        self.draws = FaultDraws()

    async def request(self, flow: http.HTTPFlow) -> None:
        verdict, policy = flow.metadata.get(METADATA_KEY), flow.metadata.get(POLICY_KEY) or Policy()
        if flow.response or flow.error or verdict is None or verdict.decision not in ("routed", "allowed") \
                or not policy.faults:
            return
        env_id, request = flow.metadata.get(ENV_KEY) or "", flow.request  # routing has repointed its path:
        body, operation = fields(request)                                 # the verdict keeps the one sent
        operation = verdict.mcp_call.tool if verdict.mcp_call else operation  # an MCP call's: its tool
        for number, fault in enumerate(policy.faults, 1):
            if fault.hits(request.method, verdict.host, verdict.path, body, operation) \
                    and self.draws.fires(env_id, number, fault):
                verdict.fault = fault.label(number)
                await self.apply(flow, fault, self.draws.draw(env_id, number, fault))
                return

    @staticmethod
    async def apply(flow: http.HTTPFlow, fault: Fault, draw: random.Random) -> None:
        verdict = flow.metadata[METADATA_KEY]
        if fault.kind in ("rate_limited", "error"):
            flow.response = answer(verdict.service if verdict.decision == "routed" else None,
                                   STATUS.get(fault.kind, fault.status))
        elif fault.kind == "latency":
            await asyncio.sleep(fault.latency_s(draw))
        elif fault.kind == "hang":
            await hang(flow)
        elif fault.kind == "drop":
            flow.kill()
        else:  # lost_answer: served, then the answer goes nowhere
            flow.metadata[LOSE_KEY] = True

    def response(self, flow: http.HTTPFlow) -> None:
        if flow.metadata.pop(LOSE_KEY, False):
            flow.kill()
