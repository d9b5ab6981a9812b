"""One request to the replica app in this process, as ASGI, with no HTTP client in between.

An MCP tool call is answered by the pack's own route (operations.py), which the MCP request
reaches through the same app. httpx's ASGITransport did that hop before; its request and
response objects (URL parsing, cookies, header models, the redirect and auth machinery) cost
about as much as the route's own work on a small answer (`make bench`'s MCP rows). The request
here is what httpx's transport sends the app (the same scope, the same encodings, httpx's own
default headers), built from the parts directly.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import anyio
import httpx
from starlette.types import ASGIApp, Message

ACCEPT = (b"accept", b"*/*")  # what httpx sends unless told otherwise (GitHub's answers depend on it)


@dataclass(frozen=True)
class Reply:
    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes

    def header(self, name: str) -> str | None:
        wanted = name.encode()
        return next((v.decode("latin-1") for k, v in self.headers if k.lower() == wanted), None)


def encoded(body: Any, form: bool) -> tuple[bytes, list[tuple[bytes, bytes]]]:
    """The body as httpx encodes `json=` (compact, UTF-8) or `data=` (form), with its headers."""
    if body is None:
        return b"", []
    if form:
        content, kind = str(httpx.QueryParams(body)).encode(), b"application/x-www-form-urlencoded"
    else:
        content = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
        kind = b"application/json"
    return content, [(b"content-length", str(len(content)).encode()), (b"content-type", kind)]


async def request(app: ASGIApp, method: str, path: str, query: Mapping[str, Any] | None,
                  headers: Mapping[str, str], body: Any = None, form: bool = False) -> Reply:
    """`path` as sent (quoted); `query` encoded as httpx's `params=`. An exception the app
    raises is raised here, as httpx's transport raises it."""
    content, content_headers = encoded(body, form)
    sent = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    if not any(k == ACCEPT[0] for k, _ in sent):
        sent.append(ACCEPT)
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
             "headers": sent + content_headers, "scheme": "http", "path": unquote(path),
             "raw_path": path.encode(), "query_string": str(httpx.QueryParams(query or {})).encode(),
             "server": ("replica", None), "client": None, "root_path": ""}
    status, answer_headers, parts = 500, [], []
    given, done = False, anyio.Event()

    async def receive() -> Message:
        nonlocal given
        if given:  # the body was read: the client goes only once the answer is whole
            await done.wait()
            return {"type": "http.disconnect"}
        given = True
        return {"type": "http.request", "body": content, "more_body": False}

    async def send(message: Message) -> None:
        nonlocal status, answer_headers
        if message["type"] == "http.response.start":
            status, answer_headers = message["status"], list(message.get("headers", []))
        elif message["type"] == "http.response.body":
            parts.append(message.get("body", b""))
            if not message.get("more_body", False):
                done.set()

    await app(scope, receive, send)
    return Reply(status, answer_headers, b"".join(parts))
