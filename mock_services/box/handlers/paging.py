"""Box's two ways through a list: offset and limit (`total_count`, `offset`, `limit`,
`order`), or markers (`usemarker=true`, `next_marker`)."""

from __future__ import annotations

import base64
from typing import Any

from mock_services.box import errors
from mock_services.rest.router import Call

MAX_LIMIT = 1000


def _limit(call: Call, default: int) -> int:
    limit = call.arg("limit", default)
    if limit < 0:
        raise errors.bad_request("Invalid value for limit", name="limit", reason="invalid_parameter")
    return min(limit, MAX_LIMIT)


def offset_page(call: Call, entries: list[Any], default_limit: int = 100, **extra: Any) -> dict:
    offset, limit = call.arg("offset", 0), _limit(call, default_limit)
    if offset < 0:
        raise errors.bad_request("Invalid value for offset", name="offset", reason="invalid_parameter")
    return {"total_count": len(entries), "entries": entries[offset:offset + limit], "offset": offset,
            "limit": limit, **extra}


def marker_page(call: Call, entries: list[Any], default_limit: int = 100) -> dict:
    limit = _limit(call, default_limit)
    start = 0
    if call.arg("marker"):
        try:
            start = int(base64.urlsafe_b64decode(call.arg("marker").encode()).decode())
        except ValueError:
            raise errors.bad_request("Invalid marker", name="marker", reason="invalid_parameter") from None
    end = start + limit
    following = base64.urlsafe_b64encode(str(end).encode()).decode() if end < len(entries) else None
    return {"entries": entries[start:end], "limit": limit, "next_marker": following}


def page(call: Call, entries: list[Any], default_limit: int = 100, **extra: Any) -> dict:
    if call.arg("usemarker"):
        return marker_page(call, entries, default_limit)
    return offset_page(call, entries, default_limit, **extra)
