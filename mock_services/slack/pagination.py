"""Slack's cursor pagination: an opaque `next_cursor`, empty when there is no more."""

from __future__ import annotations

import base64
import json
from typing import TypeVar

from mock_services.slack.errors import SlackError

T = TypeVar("T")
MAX_LIMIT = 1000


def encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"offset": offset}).encode()).decode()


def decode_cursor(cursor: str | None) -> int:
    if not cursor:
        return 0
    try:
        offset = json.loads(base64.urlsafe_b64decode(cursor.encode()))["offset"]
    except (ValueError, KeyError, TypeError):
        raise SlackError("invalid_cursor") from None
    if not isinstance(offset, int) or offset < 0:
        raise SlackError("invalid_cursor")
    return offset


def paginate(items: list[T], cursor: str | None, limit: int) -> tuple[list[T], str]:
    """One page and the cursor of the next ('' at the end)."""
    if limit < 1:
        limit = 100
    limit = min(limit, MAX_LIMIT)
    start = decode_cursor(cursor)
    page = items[start:start + limit]
    more = start + limit < len(items)
    return page, encode_cursor(start + limit) if more else ""
