"""What the addons decided about a flow, kept in `flow.metadata` for the audit log."""

from __future__ import annotations

import json
import weakref
from dataclasses import dataclass

from mitmproxy import connection, http

from detour.audit import Decision

METADATA_KEY = "detour"
# Routing's pass-through decisions, per client connection: the upstream guard lets exactly
# these addresses through (besides the replica). The one state two addons share.
PERMITTED: weakref.WeakKeyDictionary[connection.Client, set[tuple[str, int]]] = weakref.WeakKeyDictionary()


@dataclass
class Verdict:
    decision: Decision
    env_id: str | None
    host: str
    port: int
    scheme: str
    path: str
    service: str | None = None
    reason: str | None = None
    host_header: str | None = None  # as the client sent it, before routing pointed the request at a replica


def json_response(status: int, decision: Decision, body: dict, **headers: str) -> http.Response:
    return http.Response.make(
        status,
        json.dumps(body).encode(),
        {"Content-Type": "application/json", "X-Detour-Decision": decision, **headers},
    )
