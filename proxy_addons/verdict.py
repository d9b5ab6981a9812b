"""What the addons decided about a flow, kept in `flow.metadata` for the audit recorder.

The decision itself is detour_core.audit's `Verdict`, the same model the record carries.
"""

from __future__ import annotations

import json
import weakref

from mitmproxy import connection, http

from detour_core.audit import Decision, Verdict

METADATA_KEY = "detour"
# The Host header as the client sent it, where routing pointed the request at a replica since.
HOST_HEADER_KEY = "detour_host_header"
# A body refused from its headers was never read: the record keeps the size it declared.
DECLARED_BYTES_KEY = "detour_declared_bytes"
# Routing's pass-through decisions, per client connection: the upstream guard lets exactly
# these addresses through (besides the replica). The one state two addons share.
PERMITTED: weakref.WeakKeyDictionary[connection.Client, set[tuple[str, int]]] = weakref.WeakKeyDictionary()

__all__ = ["DECLARED_BYTES_KEY", "HOST_HEADER_KEY", "METADATA_KEY", "PERMITTED", "Verdict", "json_response"]


def json_response(status: int, decision: Decision, body: dict, **headers: str) -> http.Response:
    return http.Response.make(
        status,
        json.dumps(body).encode(),
        {"Content-Type": "application/json", "X-Detour-Decision": decision, **headers},
    )
