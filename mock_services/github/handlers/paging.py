"""GitHub's pages: `per_page` (at most 100, 30 by default) and `page`, with the `Link` header
naming the next, last, first and previous pages, as clients follow it."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from mock_services.github import errors
from mock_services.github.shapes import API
from mock_services.rest.router import Call

MAX_PER_PAGE = 100


def page(call: Call, items: list[Any], default: int = 30) -> list[Any]:
    """The requested page of `items`; the `Link` header goes on the call's answer."""
    per_page, number = call.arg("per_page", default), call.arg("page", 1)
    if per_page < 1 or number < 1:
        raise errors.invalid("per_page and page must be positive")
    per_page = min(per_page, MAX_PER_PAGE)
    last = max(1, -(-len(items) // per_page))
    links = []
    for rel, target in (("prev", number - 1), ("next", number + 1), ("last", last), ("first", 1)):
        if (rel in ("prev", "first") and number > 1) or (rel in ("next", "last") and number < last):
            links.append(f'<{_url(call, per_page, target)}>; rel="{rel}"')
    if links:
        call.response_headers["Link"] = ", ".join(links)
    return items[(number - 1) * per_page:number * per_page]


def _url(call: Call, per_page: int, number: int) -> str:
    path = call.operation.path
    for name, value in call.params.items():
        path = path.replace("{" + name + "}", str(value))
    query = {k: v for k, v in call.params.items()
             if "{" + k + "}" not in call.operation.path and not isinstance(v, list)}
    query.update({"per_page": per_page, "page": number})
    return f"{API}/{path}?{urlencode(query)}"
