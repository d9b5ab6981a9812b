"""One JSON line per request: routed, denied or refused, with secrets left out.

Headers and bodies are never written; query parameters that carry credentials are
redacted; proxy credentials appear only as the environment id they claim.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import IO

from mitmproxy import ctx, exceptions, http, tcp

from detour.audit import AuditRecord, now_iso, redact_path
from proxy_addons.env_auth import ENV_KEY
from proxy_addons.verdict import METADATA_KEY, Verdict


# mitmproxy's listener names, as detour's users know them.
MODES = {"reverse": "rewrite"}


def _client(flow: http.HTTPFlow | tcp.TCPFlow) -> str:
    peer = flow.client_conn.peername
    return f"{peer[0]}:{peer[1]}" if peer else ""


class AuditLog:
    def __init__(self) -> None:
        self.file: IO[str] | None = None

    def load(self, loader) -> None:
        loader.add_option("detour_audit_log", str, "", "Append one JSON line per request here.")

    def configure(self, updated: set[str]) -> None:
        if "detour_audit_log" in updated:
            if self.file:
                self.file.close()
            path = ctx.options.detour_audit_log
            if not path:
                raise exceptions.OptionsError("detour_audit_log is required")
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            self.file = open(path, "a", buffering=1)

    def done(self) -> None:
        if self.file:
            self.file.close()

    def write(self, flow: http.HTTPFlow | tcp.TCPFlow, verdict: Verdict, method: str,
              status: int | None, started: float, request_bytes: int, response_bytes: int) -> None:
        assert self.file is not None
        record = AuditRecord(
            ts=now_iso(), env_id=verdict.env_id, client=_client(flow),
            mode=MODES.get(flow.client_conn.proxy_mode.type_name, flow.client_conn.proxy_mode.type_name),
            method=method, scheme=verdict.scheme,
            host=verdict.host, port=verdict.port, path=redact_path(verdict.path),
            decision=verdict.decision, reason=verdict.reason, service=verdict.service,
            status=status, duration_ms=round((time.time() - started) * 1000, 2),
            request_bytes=request_bytes, response_bytes=response_bytes)
        self.file.write(record.model_dump_json() + "\n")

    def log_http(self, flow: http.HTTPFlow) -> None:
        verdict = flow.metadata.get(METADATA_KEY)
        if verdict is None:  # failed before routing decided anything
            verdict = Verdict("denied", flow.metadata.get(ENV_KEY), flow.request.pretty_host,
                              flow.request.port, flow.request.scheme, flow.request.path,
                              reason=str(flow.error) if flow.error else "undecided")
        response = flow.response
        self.write(flow, verdict, flow.request.method, response.status_code if response else None,
                   flow.request.timestamp_start, len(flow.request.raw_content or b""),
                   len(response.raw_content or b"") if response else 0)

    def http_connect(self, flow: http.HTTPFlow) -> None:
        """A CONNECT answered here (407) never reaches the response hook."""
        if flow.response and flow.response.status_code != 200:
            self.log_http(flow)

    def response(self, flow: http.HTTPFlow) -> None:
        self.log_http(flow)

    def error(self, flow: http.HTTPFlow) -> None:
        if flow.response is None:
            self.log_http(flow)

    def tcp_start(self, flow: tcp.TCPFlow) -> None:
        verdict = flow.metadata.get(METADATA_KEY)
        if verdict is not None:
            self.write(flow, verdict, "TCP", None, flow.timestamp_created, 0, 0)
