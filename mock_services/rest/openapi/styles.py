"""What differs between vendors, read from the model: the error body (its template, with
`{message}`, `{code}`, `{status}`, `{type}`, `{param}`), how lists page (Stripe's
`starting_after`/`ending_before` with `has_more`; `startAt`/`offset` with a total; `after`
cursors; `page` numbers with a Link header; none), and how new ids look."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from mock_services import clock
from mock_services.rest.errors import RestError
from mock_services.store import Row

ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
ENGINE_CODES = {"invalid": "parameter_invalid", "required": "parameter_missing", "parseError": "invalid_body",
                "notFound": "resource_missing", "httpMethodNotAllowed": "method_not_allowed",
                "backendError": "api_error", "invalidParameter": "parameter_invalid"}
DEFAULT_PAGE = 10


def error_body(template: Any, error: RestError) -> Any:
    """The vendor's error body: its template with this error's values put in."""
    details = error.details or {}
    values = {"{message}": error.message, "{code}": ENGINE_CODES.get(error.reason, error.reason),
              "{status}": error.status, "{param}": details.get("param"),
              "{type}": details.get("type") or ("api_error" if error.status >= 500 else "invalid_request_error")}

    def put(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: v for k, v in ((k, put(v)) for k, v in node.items()) if v is not None}
        if isinstance(node, list):
            return [put(v) for v in node]
        if node == "{request_id}":  # drawn only where the vendor's body has one (HubSpot's correlationId)
            return str(clock.uuid4())
        return values.get(node, node) if isinstance(node, str) else node
    return put(template)


def new_id(style: dict, taken: set[Any]) -> Any:
    """An id of the vendor's shape, drawn from the environment's seed, not among `taken`."""
    while True:
        kind = style.get("kind")
        if kind == "numeric":
            digits = style.get("digits", 5)
            drawn = 10 ** (digits - 1) + int(clock.token_hex(8), 16) % (9 * 10 ** (digits - 1))
            found: Any = drawn if style.get("as") == "integer" else str(drawn)
        elif kind == "uuid":
            found = str(clock.uuid4())
        elif kind == "key":
            found = str(len(taken) + 10000)  # a pack's override gives `PROJ-12` keys; a bare number here
        else:
            alphabet = {"hex": "0123456789abcdef", "upper": ALNUM[:36]}.get(style.get("alphabet", ""), ALNUM)
            found = style.get("prefix", "") + clock.choice(alphabet, style.get("length", 24))
        if found not in taken:
            return found


def page(rows: list[Row], operation: dict, params: dict[str, Any], path: str) -> tuple[list[Row], dict, dict]:
    """One page of `rows` in the operation's style: the rows, the fields the list answer gets
    beside them, and the headers."""
    style = operation.get("paging", "none")
    size_name = operation.get("page_size")
    size = params.get(size_name) if size_name else None
    size = max(1, min(int(size), 100)) if isinstance(size, int) else DEFAULT_PAGE if size_name else len(rows) or 1
    if style == "starting_after":
        after, before = params.get("starting_after"), params.get("ending_before")
        ids = [r.get("id") for r in rows]
        if before in ids:
            chosen = rows[max(0, ids.index(before) - size):ids.index(before)]
            return chosen, {"has_more": ids.index(before) - size > 0, "url": path}, {}
        start = ids.index(after) + 1 if after in ids else 0
        return rows[start:start + size], {"has_more": start + size < len(rows), "url": path}, {}
    if style == "offset":
        name = "startAt" if "startAt" in params or size_name == "maxResults" else "offset"
        start = max(0, int(params.get(name) or 0))
        chosen = rows[start:start + size]
        return chosen, {name: start, size_name or "limit": size, "total": len(rows),
                        "isLast": start + size >= len(rows), "more": start + size < len(rows)}, {}  # PagerDuty's
    if style in ("after", "cursor"):
        filters = {n: params[n] for n in operation.get("filters", {}) if params.get(n) is not None}
        cursor = params.get("after") or params.get("cursor") or params.get("start_cursor") or \
            params.get("page_token") or params.get("pageToken") or params.get("PageToken")
        start = int(cursor) if isinstance(cursor, str) and cursor.isdigit() else 0
        chosen = rows[start:start + size]
        more = start + size < len(rows)
        nxt = str(start + size) if more else None
        return chosen, {"paging": {"next": {"after": nxt}} if nxt else None, "next_cursor": nxt, "has_more": more,
                        "nextPageToken": nxt,  # Google's
                        **_page_uris(path, size_name, size, start, len(chosen), more, filters)}, {}
    if style == "page":
        number = max(1, int(params.get("page") or params.get("Page") or 1))
        chosen = rows[(number - 1) * size:number * size]
        more = number * size < len(rows)
        headers = {"Link": f'<{path}?{urlencode({"page": number + 1, size_name or "per_page": size})}>; rel="next"'} \
            if more else {}
        return chosen, {"has_more": more, "url": path, "next_page": str(number + 1) if more else None}, headers
    return rows, {"url": path}, {}


def _page_uris(path: str, size_name: str | None, size: int, start: int, count: int, more: bool,
               filters: dict[str, Any]) -> dict:
    """Twilio's page fields: its clients follow `next_page_uri` (the filters, Page and PageToken,
    the token being where the next page starts), so a list without it would end after one page."""
    def uri(number: int, token: int | None = None) -> str:
        query = {**filters, size_name or "PageSize": size, "Page": number, **({"PageToken": token} if token else {})}
        return f"{path}?{urlencode(query)}"
    number = start // size
    return {"page": number, "page_size": size, "start": start, "end": start + max(count, 1) - 1,
            "uri": uri(number, start), "first_page_uri": uri(0),
            "next_page_uri": uri(number + 1, start + size) if more else None,
            "previous_page_uri": uri(number - 1, max(0, start - size)) if start else None}
