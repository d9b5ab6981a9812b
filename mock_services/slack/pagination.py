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


def paged(items: list[T], count: int, page: int, cursor: str | None, limit: int) -> tuple[list[T], dict]:
    """Methods that take both forms: `cursor`/`limit`, or the older `count`/`page`.

    The answer carries both `paging` and `response_metadata`, as Slack's does.
    """
    if cursor or limit > 0:
        chunk, next_cursor = paginate(items, cursor, limit or 100)
        return chunk, {"paging": {"count": len(chunk), "total": len(items), "page": 1, "pages": 1},
                       "response_metadata": {"next_cursor": next_cursor}}
    count = min(max(count, 1), MAX_LIMIT)
    page = max(page, 1)
    chunk = items[(page - 1) * count: page * count]
    pages = -(-len(items) // count)
    return chunk, {"paging": {"count": count, "total": len(items), "page": page, "pages": pages},
                   "response_metadata": {"next_cursor": ""}}
