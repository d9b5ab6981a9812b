"""Drive's page tokens: opaque to the caller, an offset into the same query's answer here."""

from __future__ import annotations

import base64
import hashlib

from mock_services.rest.errors import RestError
from mock_services.rest.router import Call


def _digest(*parts: object) -> str:
    return hashlib.sha1(repr(parts).encode(), usedforsecurity=False).hexdigest()[:8]


def page(call: Call, items: list, *query: object, default_size: int = 100, largest: int = 1000) -> tuple[list, str | None]:
    """One page of `items` and the token of the next (None on the last); a token read with
    another query than the one it came from is Google's 400 `invalid`."""
    size = call.arg("pageSize", default_size)
    if not 1 <= size <= largest:
        raise RestError(400, "invalid", f"Invalid value '{size}'. Values must be within the range: [1, {largest}]")
    start = 0
    if call.arg("pageToken"):
        try:
            offset, _, digest = base64.urlsafe_b64decode(call.arg("pageToken").encode()).decode().partition(":")
            start = int(offset)
        except (ValueError, UnicodeDecodeError):
            raise RestError(400, "invalid", "Invalid Value") from None
        if digest != _digest(*query) or start < 0:
            raise RestError(400, "invalid", "Invalid Value")
    end = start + size
    following = base64.urlsafe_b64encode(f"{end}:{_digest(*query)}".encode()).decode() if end < len(items) else None
    return items[start:end], following
