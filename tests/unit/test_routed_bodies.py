"""A routed HTTP/2 request whose client sent no length (git pushes over 1 MB: no
content-length, the frames end the body) reaches the HTTP/1 replica server with its length;
without it, the body was read as empty (found by the GitHub bench's 10 MB push)."""

from __future__ import annotations

from mitmproxy.test import taddons, tflow

from proxy_addons.routing import Router
from proxy_addons.verdict import METADATA_KEY, Verdict


def _flow(decision: str, body: bytes, headers: dict[str, str]) -> object:
    flow = tflow.tflow()
    flow.request.http_version = "HTTP/2.0"
    flow.request.content = body
    for name in ("content-length", "transfer-encoding"):
        flow.request.headers.pop(name, None)
    flow.request.headers.update(headers)
    flow.metadata[METADATA_KEY] = Verdict(decision=decision, host="github.com", port=443, scheme="https", path="/")
    return flow


def test_a_routed_body_without_a_length_goes_on_with_one():
    with taddons.context(Router()):
        flow = _flow("routed", b"x" * 2048, {})
        Router().request(flow)
        assert flow.request.headers["content-length"] == "2048"


def test_declared_lengths_and_other_decisions_are_left_alone():
    with taddons.context(Router()):
        chunked = _flow("routed", b"abc", {"transfer-encoding": "chunked"})
        allowed = _flow("allowed", b"abc", {})
        for flow in (chunked, allowed):
            Router().request(flow)
        assert "content-length" not in chunked.request.headers and "content-length" not in allowed.request.headers
