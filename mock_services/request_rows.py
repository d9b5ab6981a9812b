"""The audit records of an environment as rows the assertion language reads (entity
`requests`): what the agent asked of which service, in order, and what came of it. The
records hold what the proxy saw; a body's fields are there where its policy captured bodies.

    {"n", "ts", "service", "host", "method", "path", "query", "status", "decision", "fault",
     "rule", "reason", "body": {...}, "tool", "model_call": {"model", "input_tokens", "output_tokens",
     "tokens", "ttft_ms", "stream", "target", "protocol"} or None,
     "delivery": {"queue", "id", "event", "attempt"} or None}

`delivery` is there for an event detour POSTed into the sandbox (a webhook's attempt, not the
agent's request): `where: {"delivery.event": "invoice.paid"}` counts attempts of one event.
`model_call` is there for the agent's own model calls (detour_core.model_routes): `where:
{"model_call.model": "gpt-4o"}` counts them, `{"model_call.tokens": {"gt": 4000}}` finds a
costly one.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl

from detour_core.audit import AuditLog, AuditRecord
from detour_core.paths import StatePaths
from mock_services.store import Row

ENTITY = "requests"


def _fields(record: AuditRecord) -> dict[str, Any]:
    message = record.request
    if message is None or message.body is None or message.encoding:
        return {}
    kind = dict((k.lower(), v) for k, v in message.headers).get("content-type", "").split(";")[0].strip()
    if kind == "application/x-www-form-urlencoded":
        return dict(parse_qsl(message.body))
    try:
        parsed = json.loads(message.body)
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def request_row(n: int, record: AuditRecord) -> Row:
    path, _, query = record.path.partition("?")
    return {"n": n, "ts": record.ts, "service": record.service, "host": record.host, "method": record.method,
            "path": path, "query": query, "status": record.status, "decision": record.decision,
            "fault": record.fault, "rule": record.rule, "reason": record.reason, "body": _fields(record),
            "tool": record.mcp_call.tool if record.mcp_call else None,
            "model_call": _model_call(record),
            "delivery": record.delivery.model_dump() if record.delivery else None}


def _model_call(record: AuditRecord) -> dict[str, Any] | None:
    """A model call's fields, with its tokens in and out added up."""
    call = record.model_call
    if call is None:
        return None
    return call.model_dump() | {"tokens": (call.input_tokens or 0) + (call.output_tokens or 0)}


def request_rows(state: StatePaths, env_id: str) -> list[Row]:
    """Every request of the environment, in the order the proxy recorded them (connections that
    made none are left out)."""
    records, _ = AuditLog(state.audit_dir).read(env_id, (0, 0))
    return [request_row(n, r) for n, r in enumerate((r for r in records if r.method not in ("-", "CONNECT")), 1)]
