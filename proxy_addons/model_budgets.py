"""An environment's model budget: once the calls or tokens its records show are spent, a model
call is answered with the vendor's own quota error (429, `x-should-retry: false` so the SDKs do
not retry it) and goes nowhere.

What is spent is read from the environment's audit records (the model calls that went out, and
the tokens their answers reported), so every proxy worker sees the same sums; each worker reads
only what was written since it last looked. Calls in flight at once are checked against what was
recorded before them.
"""

from __future__ import annotations

from pathlib import Path

from mitmproxy import ctx, http

from detour_core.audit import AuditLog, Position
from detour_core.model_routes import ModelBudget, vendor_error
from proxy_addons.env_auth import ENV_KEY
from proxy_addons.policies import POLICY_KEY
from proxy_addons.verdict import METADATA_KEY, json_response


class Spent:
    """One environment's model calls and tokens so far, and where its records were last read."""

    def __init__(self) -> None:
        self.calls, self.tokens, self.position = 0, 0, (0, 0)

    def over(self, budget: ModelBudget) -> str | None:
        """What is spent, where it is all of the budget; None while some is left."""
        if budget.calls is not None and self.calls >= budget.calls:
            return f"{self.calls} of {budget.calls} model calls"
        if budget.tokens is not None and self.tokens >= budget.tokens:
            return f"{self.tokens} of {budget.tokens} tokens"
        return None


class ModelBudgets:
    def __init__(self) -> None:
        self.spent: dict[str, Spent] = {}
        self.folder = ""

    def configure(self, updated: set[str]) -> None:
        if "detour_audit_dir" in updated:  # the audit recorder's option
            self.folder = ctx.options.detour_audit_dir

    def read(self, env_id: str) -> Spent:
        spent = self.spent.setdefault(env_id, Spent())
        position: Position = spent.position
        records, spent.position = AuditLog(Path(self.folder)).read(env_id, position)
        for record in records:
            call = record.model_call
            if call is not None and record.decision == "allowed":
                spent.calls += 1
                spent.tokens += (call.input_tokens or 0) + (call.output_tokens or 0)
        return spent

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        if flow.response or flow.error or not flow.live:
            return
        verdict, policy, env_id = flow.metadata.get(METADATA_KEY), flow.metadata.get(POLICY_KEY), flow.metadata.get(ENV_KEY)
        call = verdict.model_call if verdict else None
        if call is None or policy is None or policy.model_budget is None or not env_id or not self.folder:
            return
        over = self.read(env_id).over(policy.model_budget)
        if over is None:
            return
        verdict.decision, verdict.reason = "denied", f"model budget spent: {over}"
        status, body = vendor_error(call.protocol, "budget", f"detour: this environment's model budget is spent ({over})")
        flow.response = json_response(status, "denied", body, **{"x-should-retry": "false"})
