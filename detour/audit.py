"""The audit record: one JSON line per request the proxy sees, routed, denied or refused.

The proxy addon writes these and the CLI and sandbox results read them; both use this
model so the format has one definition.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from pydantic import BaseModel

Decision = Literal["routed", "denied", "unauthorized"]

SECRET_PARAMS = frozenset({"token", "access_token", "api_key", "apikey", "key", "secret",
                           "password", "client_secret", "auth", "signature"})
REDACTED = "[REDACTED]"


class AuditRecord(BaseModel):
    ts: str
    env_id: str | None
    client: str
    mode: str
    method: str
    scheme: str
    host: str
    port: int
    path: str
    decision: Decision
    reason: str | None = None
    service: str | None = None
    status: int | None = None
    duration_ms: float
    request_bytes: int
    response_bytes: int


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def redact_path(path: str) -> str:
    """Drop the values of query parameters that carry credentials."""
    parts = urlsplit(path)
    if not parts.query:
        return path
    query = [(k, REDACTED if k.lower() in SECRET_PARAMS else v)
             for k, v in parse_qsl(parts.query, keep_blank_values=True)]
    return urlunsplit(parts._replace(query=urlencode(query, safe="[]")))


def read_records(path: Path, offset: int = 0, env_id: str | None = None) -> tuple[list[AuditRecord], int]:
    """Records written at or after byte `offset`, and the offset to resume from."""
    if not path.exists():
        return [], 0
    records = []
    with path.open("rb") as f:
        f.seek(offset)
        for line in f:
            if not line.endswith(b"\n"):
                break  # a line still being written
            offset += len(line)
            record = AuditRecord.model_validate(json.loads(line))
            if env_id is None or record.env_id == env_id:
                records.append(record)
    return records, offset
