"""Egress that a policy opens is still watched: a request routing passed through to a real host
(and each WebSocket message on such a connection) is scanned for credentials before it leaves
(detour_core.egress_watch), with the environment's own secret values among them where the
host is not theirs. The policy's `watch` chooses per host what a finding does: `record` (the
record names it), `block` (403 naming it; a WebSocket message is dropped), or `redact` (each
value found as it is replaced by [REDACTED]; one found only in an encoding blocks instead).

It runs before secrets are injected, so a secret's value put in by the proxy for its own host
is never a finding. A WebSocket message is scanned with the tail of the one before it in the
same direction, so a credential split across two messages is still seen.
"""

from __future__ import annotations

from mitmproxy import ctx, http

from detour_core.egress_watch import findings, kinds, url_findings
from detour_core.policy import Policy
from detour_core.redaction import REDACTED
from proxy_addons.env_auth import ENV_KEY
from proxy_addons.policies import POLICY_KEY
from proxy_addons.verdict import METADATA_KEY, json_response

TAIL = 256  # characters of the previous message scanned with the next
TAIL_KEY = "detour.watch_tail"
MESSAGE_FINDINGS_KEY = "detour.message_findings"  # the last WebSocket message's, until it is recorded


class EgressWatch:
    def own_secrets(self, flow: http.HTTPFlow, host: str) -> dict[str, str]:
        """The environment's secret values that may not go to `host` (it is not theirs)."""
        injector, env_id = ctx.master.addons.get("secretinjector"), flow.metadata.get(ENV_KEY)
        if injector is None or env_id is None:
            return {}
        return {name: s.value for name, s in injector.secrets_of(env_id).items() if not s.covers(host)}

    def request(self, flow: http.HTTPFlow) -> None:
        verdict = flow.metadata.get(METADATA_KEY)
        if flow.response or flow.error or not flow.live or verdict is None or verdict.decision != "allowed":
            return
        request, own = flow.request, self.own_secrets(flow, verdict.host)
        parts = [request.url, *(f"{n}: {v}" for n, v in request.headers.items(multi=True)),
                 request.get_text(strict=False) or "" if not request.stream else ""]
        found = [f for part in parts for f in findings(part, own)] + url_findings(request.url)
        if not found:
            return
        verdict.findings = kinds(found)
        action = (flow.metadata.get(POLICY_KEY) or Policy()).watch_for(verdict.host)
        if action == "redact" and self.redacted(request, found):
            return
        if action != "record":
            verdict.decision, verdict.reason = "denied", "credential in request: " + ", ".join(verdict.findings)
            flow.response = json_response(403, "denied", {"error": "denied", "reason": verdict.reason,
                                                          "findings": verdict.findings})

    @staticmethod
    def redacted(request: http.Request, found: list[tuple[str, str]]) -> bool:
        """Each value replaced where it stands as it is; False if one is not (it hid in an encoding)."""
        values = [value for _, value in found if value]
        text = request.get_text(strict=False) or ""
        whole = request.url + "".join(request.headers.values()) + text
        if not values or not all(value in whole for value in values):
            return False
        for value in values:
            request.url = request.url.replace(value, REDACTED)
            for name, header in list(request.headers.items()):
                request.headers[name] = header.replace(value, REDACTED)
            text = text.replace(value, REDACTED)
        if request.raw_content:
            request.text = text
        return True

    def websocket_message(self, flow: http.HTTPFlow) -> None:
        verdict = flow.metadata.get(METADATA_KEY)
        if verdict is None or verdict.decision != "allowed" or flow.websocket is None:
            return
        message = flow.websocket.messages[-1]
        if not message.from_client:
            return
        text = message.content.decode("utf-8", "replace")
        found = findings(flow.metadata.get(TAIL_KEY, "") + text, self.own_secrets(flow, verdict.host))
        flow.metadata[TAIL_KEY] = text[-TAIL:]
        if not found:
            return
        flow.metadata[MESSAGE_FINDINGS_KEY] = kinds(found)  # for this message's record
        action = (flow.metadata.get(POLICY_KEY) or Policy()).watch_for(verdict.host)
        values = [value for _, value in found if value]
        if action == "redact" and values and all(value in text for value in values):
            for value in values:
                text = text.replace(value, REDACTED)
            message.content = text.encode()
        elif action != "record":
            message.drop()
