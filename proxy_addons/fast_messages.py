"""The fast path's own request and answer (fast_tunnel.py), as the wire and the audit record read them.

mitmproxy's `http.Request` and `http.Response` cost ~75 us of CPU a call to make (most of it
their dataclasses' type checks, which run unless Python runs with -O): a tenth of a kept
connection's call. These hold what the fast path has (the head's fields as parsed, the body as
sent) and answer the few things the AuditRecorder reads of a message (audit_recorder.Part), in
mitmproxy's names, so a record reads them as it reads a flow's.
"""

from __future__ import annotations

import functools
from email.utils import formatdate

from mitmproxy import http
from mitmproxy.net.http.status_codes import RESPONSES

Fields = list[tuple[bytes, bytes]]


class Message:
    """Head fields and a body, read as mitmproxy's messages are read."""

    def __init__(self, fields: Fields, raw_content: bytes) -> None:
        self.fields, self.raw_content = fields, raw_content

    @functools.cached_property
    def headers(self) -> http.Headers:
        return http.Headers(self.fields)

    def get_content(self, strict: bool = True) -> bytes | None:
        """The body decoded as its Content-Encoding says: mitmproxy's own reading, on these fields."""
        return http.Message.get_content(self, strict)  # type: ignore[arg-type]  # it reads headers and raw_content


class Sent(Message):
    """A request the fast path answers."""

    def __init__(self, method: bytes, version: str, fields: Fields, raw_content: bytes, started: float) -> None:
        super().__init__(fields, raw_content)
        self.method, self.http_version, self.timestamp_start = method.decode("latin-1"), f"HTTP/{version}", started


class Answer(Message):
    """The replica app's answer, as mitmproxy's ASGI bridge makes it of the app's messages: its
    Content-Encoding dropped (the bridge decodes the empty body it starts from), its length set
    in place (none beside a Transfer-Encoding), dated as the replica server's uvicorn dates it."""

    def __init__(self, status: int, fields: Fields, body: bytes) -> None:
        chunked = any(n.lower() == b"transfer-encoding" for n, _ in fields)
        kept, placed = [], False
        for name, value in fields:
            low = name.lower()
            if low == b"content-encoding" or (low == b"content-length" and placed):
                continue
            if low == b"content-length" and not chunked:
                value, placed = b"%d" % len(body), True
            kept.append((name, value))
        if not (placed or chunked):
            kept.append((b"content-length", b"%d" % len(body)))
        if not any(n.lower() == b"date" for n, _ in kept):
            kept.append((b"date", formatdate(usegmt=True).encode()))
        super().__init__(kept, body)
        self.status_code = status

    def wire(self) -> bytes:
        """The answer's bytes on the tunnel: HTTP/1.1, its reason phrase, its fields, its body."""
        head = [b"HTTP/1.1 %d %s" % (self.status_code, RESPONSES.get(self.status_code, "").encode())]
        head += [n + b": " + v for n, v in self.fields]
        return b"\r\n".join(head) + b"\r\n\r\n" + self.raw_content

    def closes(self) -> bool:
        """Whether the app asked for the connection to close after it."""
        return any(n.lower() == b"connection" and v.strip().lower() == b"close" for n, v in self.fields)


def failed() -> Answer:
    """What the replica server's uvicorn answers an app that raised."""
    return Answer(500, [(b"content-type", b"text/plain; charset=utf-8")], b"Internal Server Error")
