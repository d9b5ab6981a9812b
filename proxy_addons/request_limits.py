"""Limits one environment's requests so that none can starve the proxy every environment uses.

A request whose declared body is over its environment's limit (policy `max_request_bytes`,
default 64 MiB) is answered 413 from its headers, before a byte of the body is read, and its
record keeps the declared size. A large body to a passed-through host streams to it instead
of being held whole in memory. Bodies without a declared length are capped by mitmproxy's own
`body_size_limit`, which the stack sets to the largest limit any policy may give.
"""

from __future__ import annotations

from mitmproxy import http

from detour_core.policy import DEFAULT_MAX_REQUEST_BYTES, Policy
from proxy_addons.policies import POLICY_KEY
from proxy_addons.verdict import DECLARED_BYTES_KEY, METADATA_KEY, json_response

STREAM_BYTES = 1024 * 1024  # a passed-through body larger than this streams


def declared_size(flow: http.HTTPFlow) -> int | None:
    value = flow.request.headers.get("content-length", "")
    return int(value) if value.strip().isdigit() else None


class RequestLimits:
    def requestheaders(self, flow: http.HTTPFlow) -> None:
        verdict = flow.metadata.get(METADATA_KEY)
        size = declared_size(flow)
        if flow.response or verdict is None or verdict.decision not in ("routed", "allowed") or size is None:
            return
        policy: Policy = flow.metadata.get(POLICY_KEY) or Policy()
        limit = policy.max_request_bytes or DEFAULT_MAX_REQUEST_BYTES
        if size > limit:
            flow.metadata[DECLARED_BYTES_KEY] = size
            verdict.decision, verdict.service = "denied", None
            verdict.reason = f"request body of {size} bytes is over the environment's limit of {limit}"
            flow.response = json_response(413, "denied", {"error": "request_too_large", "limit": limit,
                                                          "declared": size, "reason": verdict.reason})
        elif verdict.decision == "allowed" and size > STREAM_BYTES:
            flow.request.stream = True
