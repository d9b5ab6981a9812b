"""The agent's own model calls: a model vendor's host that the environment's policy routes
(detour_core.model_routes) goes to its target, and its answer is metered on the way back.

Routing lets a routed host through as `allowed` (the policy's `allows` names it); `ModelRoutes`
then points a call at its target's base URL (or leaves it with the vendor, whose key detour's
secrets hold) and marks its verdict as a model call. It runs before the secrets are put in, which
follow where the request now goes, so a vendor's key never goes to a server of the user's.

`ModelMeter` reads the model and the tokens from the vendor's own answer fields: a whole answer
once it has come, a streamed one (server-sent events) event by event as it passes, never held
back; the first byte's time is the time to first token. With `capture: bodies` a streamed answer
is kept for its record (up to KEPT_BYTES), as a whole one is.
"""

from __future__ import annotations

import json
import time
from urllib.parse import urlsplit

from mitmproxy import http

from detour_core.model_routes import EventReader, ModelCall, read_usage, request_model
from proxy_addons.policies import POLICY_KEY
from proxy_addons.verdict import HOST_HEADER_KEY, METADATA_KEY, PERMITTED

ROUTE_KEY = "detour.model_route"
TAP_KEY = "detour.model_tap"
KEPT_BYTES = 16 * 1024 * 1024


class ModelRoutes:
    def requestheaders(self, flow: http.HTTPFlow) -> None:
        if flow.response or flow.error or not flow.live:
            return
        verdict, policy = flow.metadata.get(METADATA_KEY), flow.metadata.get(POLICY_KEY)
        route = policy.model_route(verdict.host) if verdict and policy and verdict.decision == "allowed" else None
        if route is None:
            return
        assert route.protocol is not None
        flow.metadata[ROUTE_KEY] = route
        translated = route.translated()
        verdict.model_call = ModelCall(protocol=route.host_protocol(), target=route.target(),
                                       translated_to=route.protocol if translated else None)
        flow.request.headers["accept-encoding"] = "identity"  # usage is read from the answer as it passes
        if route.base_url and not translated:  # a translated call goes by way of ModelTranslator
            self.rebase(flow, route.base_url, route.rebased(flow.request.path))

    @staticmethod
    def rebase(flow: http.HTTPFlow, base_url: str, path: str) -> None:
        """To the target server, by its URL; the record keeps the Host the client sent."""
        url = urlsplit(base_url)
        assert url.hostname is not None
        port = url.port or (443 if url.scheme == "https" else 80)
        flow.metadata[HOST_HEADER_KEY] = flow.request.host_header
        flow.request.scheme, flow.request.host, flow.request.port = url.scheme, url.hostname, port
        flow.request.path = path
        if flow.request.http_version.startswith("HTTP/1"):
            flow.request.authority = ""
        flow.request.host_header = url.netloc
        PERMITTED.setdefault(flow.client_conn, set()).add((url.hostname, port))

    def request(self, flow: http.HTTPFlow) -> None:
        verdict = flow.metadata.get(METADATA_KEY)
        call = verdict.model_call if verdict else None
        if call is not None and not flow.request.stream:
            call.model = request_model(flow.request.path, flow.request.raw_content or b"")


class Tap:
    """A streamed answer passed on as it comes (through the secret scrubber's stream where one
    is set), its events read for usage and, for the record, kept."""

    def __init__(self, flow: http.HTTPFlow, call: ModelCall, inner, keep: bool) -> None:
        self.flow, self.call, self.inner = flow, call, inner
        self.reader, self.kept, self.size = EventReader(call), bytearray(), 0
        self.room = KEPT_BYTES if keep else 0  # kept only for a record that captures bodies

    def __call__(self, chunk: bytes) -> list[bytes]:
        out = self.inner(chunk) if callable(self.inner) else ([chunk] if chunk else [])
        out = [out] if isinstance(out, bytes) else list(out)
        for data in out:
            if data and self.call.ttft_ms is None:
                self.call.ttft_ms = round((time.time() - self.flow.request.timestamp_start) * 1000, 2)
            self.reader.feed(data)
            self.size += len(data)
            if len(self.kept) < self.room:
                self.kept += data[:self.room - len(self.kept)]
        return out


class ModelMeter:
    def responseheaders(self, flow: http.HTTPFlow) -> None:
        verdict, response = flow.metadata.get(METADATA_KEY), flow.response
        call = verdict.model_call if verdict else None
        if call is None or response is None:
            return
        call.stream = response.headers.get("content-type", "").startswith("text/event-stream")
        if call.stream and response.raw_content is None:  # coming from the target, not made here (a replay)
            policy = flow.metadata.get(POLICY_KEY)
            tap = Tap(flow, call, response.stream, keep=policy is not None and policy.capture == "bodies")
            flow.metadata[TAP_KEY] = tap
            response.stream = tap

    def response(self, flow: http.HTTPFlow) -> None:
        verdict, response = flow.metadata.get(METADATA_KEY), flow.response
        call = verdict.model_call if verdict else None
        if call is None or response is None:
            return
        tap: Tap | None = flow.metadata.pop(TAP_KEY, None)
        if tap is not None:
            if tap.room and tap.size == len(tap.kept):
                response.raw_content = bytes(tap.kept)  # already sent: this is the record's copy
            return
        if call.ttft_ms is None and response.timestamp_start:
            call.ttft_ms = round((response.timestamp_start - flow.request.timestamp_start) * 1000, 2)
        body = response.get_content(strict=False) or b""
        if response.headers.get("content-type", "").startswith("text/event-stream"):  # a replayed stream
            call.stream = True
            EventReader(call).feed(body + b"\n")
            return
        try:
            read_usage(call, json.loads(body or b"null"))
        except ValueError:
            pass  # not JSON: an error page, say; the record has what the request asked for
