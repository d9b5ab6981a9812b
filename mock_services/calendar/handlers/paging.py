"""Google's paging: `maxResults` and an opaque `pageToken`, `nextPageToken` while more remain."""

from __future__ import annotations

import base64
import json
from typing import Any

from mock_services.rest.errors import RestError
from mock_services.rest.router import Call


def token(offset: int, **context: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps({"o": offset, **context}).encode()).decode()


def read_token(text: str) -> dict:
    try:
        data = json.loads(base64.urlsafe_b64decode(text.encode()))
    except (ValueError, UnicodeDecodeError):
        raise RestError(400, "invalid", "Invalid page token value.") from None
    if not isinstance(data, dict) or not isinstance(data.get("o"), int) or data["o"] < 0:
        raise RestError(400, "invalid", "Invalid page token value.")
    return data


def page(call: Call, items: list, default: int, most: int) -> tuple[list, str | None]:
    size = call.arg("maxResults", default)
    if size < 1:
        raise RestError(400, "invalid", "Invalid value for maxResults")
    size = min(size, most)
    start = read_token(call.params["pageToken"])["o"] if call.params.get("pageToken") else 0
    chunk = items[start:start + size]
    return chunk, token(start + size) if start + size < len(items) else None
