"""Model calls answered from a recording: a route's `replay` names an environment whose records
(captured with `capture: bodies`) hold its model calls; a call that asks what a recorded one
asked (method, path and body, redacted as the records are) gets the recorded answer, the k-th
such call the k-th such answer, so a rerun of an agent that thinks with a model is
deterministic. A call the recording does not hold is answered with the vendor's own 404, and
goes nowhere.
"""

from __future__ import annotations

import base64
from collections import Counter
from pathlib import Path

from mitmproxy import ctx, http

from detour_core.audit import AuditLog, AuditRecord, Message, Position
from detour_core.model_routes import ModelRoute, vendor_error
from detour_core.policy import Policy
from detour_core.redaction import Redactor
from proxy_addons.audit_recorder import message
from proxy_addons.env_auth import ENV_KEY
from proxy_addons.model_routes import ROUTE_KEY
from proxy_addons.policies import POLICY_KEY
from proxy_addons.verdict import METADATA_KEY, json_response

Asked = tuple[str, str, str | None]  # method, path, body: what a call asked, as its record keeps it


def _asked(method: str, path: str, request: Message | None) -> Asked:
    return method, path, request.body if request is not None else None


def _answer(record: AuditRecord) -> http.Response | None:
    """The recorded answer, as it was sent; None where its record does not hold it whole."""
    response = record.response
    if response is None or record.status is None or response.body is None or response.truncated:
        return None
    body = base64.b64decode(response.body) if response.encoding else response.body.encode()
    kept = [(n, v) for n, v in response.headers if n.lower() == "content-type"]
    return http.Response.make(record.status, body, [(n.encode(), v.encode()) for n, v in kept])


class ModelReplay:
    def __init__(self) -> None:
        self.recorded: dict[str, tuple[Position, list[AuditRecord]]] = {}
        self.used: Counter[tuple[str, str, Asked]] = Counter()
        self.redactors: dict[tuple[str, ...], Redactor] = {}
        self.folder = ""

    def configure(self, updated: set[str]) -> None:
        if "detour_audit_dir" in updated:  # the audit recorder's option
            self.folder = ctx.options.detour_audit_dir

    def recording(self, env_id: str) -> list[AuditRecord]:
        """The model calls an environment's records hold that went out, read on from last time."""
        position, calls = self.recorded.get(env_id, ((0, 0), []))
        records, position = AuditLog(Path(self.folder)).read(env_id, position)
        calls = calls + [r for r in records if r.model_call is not None and r.decision == "allowed"]
        self.recorded[env_id] = (position, calls)
        return calls

    def request(self, flow: http.HTTPFlow) -> None:
        if flow.response or flow.error or not flow.live:
            return
        route: ModelRoute | None = flow.metadata.get(ROUTE_KEY)
        verdict, policy = flow.metadata.get(METADATA_KEY), flow.metadata.get(POLICY_KEY)
        if route is None or route.replay is None or verdict is None or verdict.model_call is None or policy is None:
            return
        asked = self.asked(flow, policy)
        same = [r for r in self.recording(route.replay) if _asked(r.method, r.path, r.request) == asked]
        key = (flow.metadata.get(ENV_KEY) or "", route.replay, asked)
        answer = _answer(same[self.used[key]]) if self.used[key] < len(same) else None
        if answer is not None:
            self.used[key] += 1
            answer.headers["X-Detour-Decision"] = "allowed"
            flow.response = answer
            return
        verdict.decision = "denied"
        verdict.reason = (f"the recording of {route.replay} holds no (whole) answer to this call "
                          f"({len(same)} like it, {self.used[key]} of them replayed)")
        status, body = vendor_error(verdict.model_call.protocol, "unrecorded", f"detour: {verdict.reason}")
        flow.response = json_response(status, "denied", body, **{"x-should-retry": "false"})

    def asked(self, flow: http.HTTPFlow, policy: Policy) -> Asked:
        """The call as its record would keep it: path and body redacted by the policy's rules."""
        redactor = self.redactors.setdefault(tuple(policy.redact), Redactor(policy.redact))
        whole = policy.model_copy(update={"capture": "bodies", "body_limit": max(policy.body_limit, 1 << 30)})
        verdict = flow.metadata[METADATA_KEY]
        return _asked(flow.request.method, redactor.path(verdict.path), message(flow.request, whole, redactor))
