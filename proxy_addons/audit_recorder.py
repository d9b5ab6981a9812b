"""A record of every request the proxy sees, and of every connection that showed it none.

Requests: routed, allowed, denied or refused, with headers and bodies when the environment's
policy captures them, redacted before anything is written. Connections that end without a
request this addon saw (the protocol layer answered 400 to garbage or to HTTP/1.0 without a
Host, a TLS handshake failed, a CONNECT and then silence) get one record each, so "every
attempt is recorded" holds. Proxy credentials appear only as the environment they claim.
A WebSocket's messages get a record each after its upgrade's (direction, size, redacted content).
"""

from __future__ import annotations

import base64
import time
import weakref
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path

from mitmproxy import connection, ctx, exceptions, http, tcp, tls

from detour_core.audit import AuditRecord, AuditWriter, Message, iso
from detour_core.policy import Policy
from detour_core.redaction import Redactor
from proxy_addons.answered_bodies import DROPPED_BYTES_KEY
from proxy_addons.egress_watch import MESSAGE_FINDINGS_KEY
from proxy_addons.env_auth import ENV_KEY
from proxy_addons.fast_messages import Answer, Sent
from proxy_addons.fast_messages import Message as FastMessage
from proxy_addons.policies import POLICY_KEY
from proxy_addons.verdict import (
    DECLARED_BYTES_KEY,
    HOST_HEADER_KEY,
    METADATA_KEY,
    Verdict,
)

# mitmproxy's listener names, as detour's users know them.
MODES = {"reverse": "rewrite"}
TRUNCATED = "\n[detour: truncated, {} of {} bytes kept]"


@dataclass
class Connection:
    """What the addon knows of one client connection until it closes."""

    started: float = field(default_factory=time.time)
    recorded: bool = False
    connect: tuple[str, int] | None = None
    env_id: str | None = None
    tls_error: str | None = None


def _client(conn: connection.Client) -> str:
    peer = conn.peername
    return f"{peer[0]}:{peer[1]}" if peer else ""


def _mode(conn: connection.Client) -> str:
    return MODES.get(conn.proxy_mode.type_name, conn.proxy_mode.type_name)


def message(part: http.Message | FastMessage, policy: Policy, redactor: Redactor,
            host: str | None = None) -> Message:
    """Headers (and, with capture=bodies, the body, cut at the policy's limit), redacted;
    `host`: the Host header the client sent, where routing has changed it since."""
    pairs = part.headers.items(multi=True)
    if host is not None:
        pairs = [(n, host if n.lower() == "host" else v) for n, v in pairs]
    headers = redactor.headers(pairs)
    if policy.capture != "bodies":
        return Message(headers=headers, size=len(part.raw_content or b""))
    return captured(part.get_content(strict=False) or b"", part.headers.get("content-type", ""), headers,
                    policy, redactor)


def captured(raw: bytes, content_type: str, headers: list[tuple[str, str]], policy: Policy,
             redactor: Redactor) -> Message:
    """A body as a record keeps it: redacted, cut at the policy's limit, base64 where not UTF-8."""
    content = redactor.body(raw, content_type)
    kept = content[:policy.body_limit]
    try:
        body, encoding = kept.decode("utf-8"), None
    except UnicodeDecodeError:
        body, encoding = base64.b64encode(kept).decode(), "base64"
    truncated = len(content) > len(kept)
    if truncated and encoding is None:
        body += TRUNCATED.format(len(kept), len(raw))
    return Message(headers=headers, body=body, encoding=encoding, size=len(raw), truncated=truncated)


class AuditRecorder:
    def __init__(self) -> None:
        self.writer: AuditWriter | None = None
        self.connections: weakref.WeakKeyDictionary[connection.Client, Connection] = weakref.WeakKeyDictionary()
        self.redactors: dict[tuple[str, ...], Redactor] = {}

    def load(self, loader) -> None:
        loader.add_option("detour_audit_dir", str, "", "Folder of per-environment audit records.")
        loader.add_option("detour_audit_segment_mb", int, 64, "Size at which an environment's records start a new file.")

    def configure(self, updated: set[str]) -> None:
        if updated & {"detour_audit_dir", "detour_audit_segment_mb"}:
            if not ctx.options.detour_audit_dir:
                raise exceptions.OptionsError("detour_audit_dir is required")
            if self.writer:
                self.writer.close()
            self.writer = AuditWriter(Path(ctx.options.detour_audit_dir),
                                      segment_bytes=ctx.options.detour_audit_segment_mb * 1024 * 1024)

    def done(self) -> None:
        if self.writer:
            self.writer.close()

    def redactor(self, policy: Policy) -> Redactor:
        key = tuple(policy.redact)
        if key not in self.redactors:
            self.redactors[key] = Redactor(key)
        return self.redactors[key]

    def write(self, conn: Hashable, record: AuditRecord) -> None:
        assert self.writer is not None
        self.writer.write(record)
        if conn in self.connections:
            self.connections[conn].recorded = True

    # Requests

    def log_http(self, flow: http.HTTPFlow) -> None:
        verdict = flow.metadata.get(METADATA_KEY)
        if verdict is None:  # failed before routing decided anything
            verdict = Verdict(decision="denied", env_id=flow.metadata.get(ENV_KEY), host=flow.request.pretty_host,
                              port=flow.request.port, scheme=flow.request.scheme, path=flow.request.path,
                              reason=str(flow.error) if flow.error else "undecided")
        self.log_exchange(
            flow.client_conn, verdict, flow.metadata.get(POLICY_KEY) or Policy(), flow.request, flow.response,
            client=_client(flow.client_conn), mode=_mode(flow.client_conn),
            request_bytes=flow.metadata.get(DECLARED_BYTES_KEY)
            or len(flow.request.raw_content or b"") + flow.metadata.get(DROPPED_BYTES_KEY, 0),
            host_header=flow.metadata.get(HOST_HEADER_KEY))

    def log_exchange(self, conn: Hashable, verdict: Verdict, policy: Policy, request: http.Request | Sent,
                     response: http.Response | Answer | None, *, client: str, mode: str, request_bytes: int,
                     host_header: str | None = None) -> None:
        """One request's record, from a flow or from the fast path's own exchange (one schema: the
        fast path's messages answer what a record reads in mitmproxy's names)."""
        redactor = self.redactor(policy)
        captured = policy.capture != "off"
        self.write(conn, AuditRecord(
            **(verdict.model_dump() | {"path": redactor.path(verdict.path)}),
            ts=iso(request.timestamp_start), client=client, mode=mode, method=request.method,
            status=response.status_code if response else None,
            duration_ms=round((time.time() - request.timestamp_start) * 1000, 2),
            request_bytes=request_bytes, response_bytes=len(response.raw_content or b"") if response else 0,
            http_version=request.http_version,
            request=message(request, policy, redactor, host_header) if captured else None,
            response=message(response, policy, redactor) if captured and response else None))

    def http_connect(self, flow: http.HTTPFlow) -> None:
        """A CONNECT answered here (407) never reaches the response hook; one that succeeds is
        remembered, so that a tunnel that carries no request still leaves a record."""
        if flow.response and flow.response.status_code != 200:
            self.log_http(flow)
            return
        if flow.client_conn in self.connections:
            note = self.connections[flow.client_conn]
            note.connect = (flow.request.host, flow.request.port)
            note.env_id = flow.metadata.get(ENV_KEY)

    def response(self, flow: http.HTTPFlow) -> None:
        self.log_http(flow)

    def error(self, flow: http.HTTPFlow) -> None:
        """A flow cut before its answer, or while its answer streamed (an event stream the client
        left): the response hook saw neither."""
        if flow.response is None or flow.response.stream:
            self.log_http(flow)

    def websocket_message(self, flow: http.HTTPFlow) -> None:
        """A record per WebSocket message, after the upgrade's own: its direction and size, and
        (with capture=bodies) its content, redacted as a body is (a text message as JSON where it
        parses). Read only: the message goes on as it came."""
        verdict = flow.metadata.get(METADATA_KEY)
        if verdict is None or flow.websocket is None:
            return
        frame = flow.websocket.messages[-1]
        policy: Policy = flow.metadata.get(POLICY_KEY) or Policy()
        redactor = self.redactor(policy)
        size, sent = len(frame.content), frame.from_client
        found = flow.metadata.pop(MESSAGE_FINDINGS_KEY, None) if sent else None
        dropped = {"decision": "denied", "reason": "message dropped: credential in it"} if frame.dropped else {}
        part = None if policy.capture == "off" else Message(headers=[], size=size) if policy.capture == "headers" \
            else captured(frame.content, "application/json" if frame.is_text else "", [], policy, redactor)
        self.write(flow.client_conn, AuditRecord(
            **(verdict.model_dump() | {"path": redactor.path(verdict.path), "findings": found} | dropped),
            ts=iso(frame.timestamp), client=_client(flow.client_conn), mode=_mode(flow.client_conn),
            method="WS", websocket="sent" if sent else "received",
            status=flow.response.status_code if flow.response else None, duration_ms=0,
            request_bytes=size if sent else 0, response_bytes=0 if sent else size,
            request=part if sent else None, response=None if sent else part))

    def tcp_start(self, flow: tcp.TCPFlow) -> None:
        verdict = flow.metadata.get(METADATA_KEY)
        if verdict is not None:
            self.write(flow.client_conn, AuditRecord(
                **(verdict.model_dump() | {"env_id": verdict.env_id or self._env_of(flow.client_conn)}),
                ts=iso(flow.timestamp_created), client=_client(flow.client_conn),
                mode=_mode(flow.client_conn), method="TCP", duration_ms=0, request_bytes=0, response_bytes=0))

    # Connections

    def client_connected(self, client: connection.Client) -> None:
        self.connections[client] = Connection()

    def tls_failed_client(self, data: tls.TlsData) -> None:
        if data.context.client in self.connections:
            self.connections[data.context.client].tls_error = str(data.conn.error or "TLS handshake failed")

    def client_disconnected(self, client: connection.Client) -> None:
        note = self.connections.pop(client, None)
        if note is None or note.recorded:
            return
        note.env_id = note.env_id or self._env_of(client)
        self.log_unrequested(client, note, _client(client), _mode(client), client.sni or "",
                             client.sockname[1] if client.sockname else 0, bool(client.tls))

    def log_unrequested(self, conn: Hashable, note: Connection, client: str, mode: str, sni: str, port: int,
                        tls: bool) -> None:
        """A connection that ended without a request: one record, from mitmproxy's or the fast path's."""
        if note.connect:
            method, (host, port), reason = "CONNECT", note.connect, "tunnel closed without a request"
        else:
            host, method = sni, "-"
            reason = "connection without a request (the proxy's protocol layer rejected it, or none came)"
        if note.tls_error:
            reason = f"TLS: {note.tls_error}"
        verdict = Verdict(decision="denied", env_id=note.env_id, host=host, port=port, path="", reason=reason,
                          scheme="tls" if tls or note.tls_error else "tcp")
        self.write(conn, AuditRecord(
            **verdict.model_dump(), ts=iso(note.started), client=client, mode=mode,
            method=method, duration_ms=round((time.time() - note.started) * 1000, 2),
            request_bytes=0, response_bytes=0))

    def _env_of(self, client: connection.Client) -> str | None:
        """A tunnel's environment, or a namespace sandbox's (its address is registered), even
        when the connection never named one."""
        note = self.connections.get(client)
        if note and note.env_id:
            return note.env_id
        auth = ctx.master.addons.get("envauth")
        return auth.registered_env(client) if auth else None
