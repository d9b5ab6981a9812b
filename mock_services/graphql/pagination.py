"""Relay connections, written once for every list field."""

from __future__ import annotations

import base64

from mock_services.graphql.errors import ApiError
from mock_services.store import Row

DEFAULT_PAGE = 50


def _cursor(row: Row) -> str:
    return base64.b64encode(row["id"].encode()).decode()


def _position(rows: list[Row], cursor: str) -> int:
    try:
        row_id = base64.b64decode(cursor.encode(), validate=True).decode()
    except ValueError:
        raise ApiError("Invalid cursor") from None
    for index, row in enumerate(rows):
        if row["id"] == row_id:
            return index
    raise ApiError("Invalid cursor")


def empty_connection() -> dict:
    return {"nodes": [], "edges": [], "pageInfo": {"hasNextPage": False, "hasPreviousPage": False,
                                                   "startCursor": None, "endCursor": None}}


def connection(rows: list[Row], first: int | None = None, after: str | None = None,
               last: int | None = None, before: str | None = None,
               orderBy: str | None = None, **_: object) -> dict:
    """Order newest first by `orderBy` (createdAt unless told), then slice Relay-style."""
    for size in (first, last):
        if size is not None and size <= 0:
            raise ApiError("first and last must be positive")
    key = orderBy or "createdAt"
    ordered = sorted(rows, key=lambda r: (str(r.get(key) or ""), r["id"]), reverse=True)
    start, end = 0, len(ordered)
    if after:
        start = _position(ordered, after) + 1
    if before:
        end = _position(ordered, before)
    window = ordered[start:end]
    if last is not None and first is None:
        page = window[-last:]
    else:
        page = window[:first if first is not None else DEFAULT_PAGE]
    page_start = start + (len(window) - len(page) if last is not None and first is None else 0)
    return {
        "nodes": page,
        "edges": [{"node": r, "cursor": _cursor(r)} for r in page],
        "pageInfo": {
            "hasNextPage": page_start + len(page) < len(ordered) if before is None else end < len(ordered),
            "hasPreviousPage": page_start > 0,
            "startCursor": _cursor(page[0]) if page else None,
            "endCursor": _cursor(page[-1]) if page else None,
        },
    }
