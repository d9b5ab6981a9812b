"""A request answered from its headers (denied, unauthorized, over a limit) keeps at most the
first MiB of its body; the rest is read and dropped as it comes, never held.

mitmproxy sends an answer an addon set at `requestheaders` only once the request's body has
ended, and until then it appends every chunk to the flow's buffer: a sandbox that posts 400 MB
to a host it may not reach, or over its size limit, would make the proxy that every environment
shares hold 400 MB. No hook runs while a body is read, so the one seam is the state that reads
it (`HttpStream.state_consume_request_body`); this addon wraps it when it loads. What is kept is
what a record may capture; the record's `request_bytes` counts the dropped bytes too.
"""

from __future__ import annotations

from mitmproxy.proxy.layers.http import HttpStream
from mitmproxy.proxy.layers.http._events import RequestData

KEPT_BYTES = 1024 * 1024
DROPPED_BYTES_KEY = "detour_dropped_bytes"


def _dropping(consume):
    """`consume`, but a chunk of an answered request's body beyond KEPT_BYTES is only counted."""
    def state_consume_request_body(self: HttpStream, event):
        if isinstance(event, RequestData) and self.flow.response is not None \
                and len(self.request_body_buf) >= KEPT_BYTES:
            self.flow.metadata[DROPPED_BYTES_KEY] = self.flow.metadata.get(DROPPED_BYTES_KEY, 0) + len(event.data)
            return
        yield from consume(self, event)
    state_consume_request_body.detour_dropping = True
    return state_consume_request_body


class AnsweredBodies:
    def load(self, loader) -> None:
        if not getattr(HttpStream.state_consume_request_body, "detour_dropping", False):
            HttpStream.state_consume_request_body = _dropping(HttpStream.state_consume_request_body)
