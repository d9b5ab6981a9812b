"""No answer carries a secret's value back into the sandbox. An answer from a host a secret may
be sent to (whether or not this request carried it: the host may have kept it) has every form
of the value (detour_core.secret_encodings) turned back into the placeholder, in its headers,
body and trailers, before any other addon or the sandbox sees it; its record names the secret.

A compressed answer is decoded to be checked and goes on decoded. An answer of unknown length
or over a MiB (an event stream, a download) streams, checked chunk by chunk as it is decoded.
What cannot be checked (a compression the proxy cannot read, a protocol switch) is refused
with a 502 unless every secret of the host says `unchecked: pass`; passed, its record says so.
A streamed answer whose compression breaks halfway is cut off there.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable

import brotli
import zstandard
from mitmproxy import http

from detour_core.audit import Verdict
from detour_core.secret_encodings import forms
from detour_core.secrets import Secret
from proxy_addons.chunk_replacer import ChunkReplacer, Needle
from proxy_addons.secret_injection import HOST_SECRETS_KEY
from proxy_addons.verdict import METADATA_KEY, json_response

STREAM_BYTES = 1024 * 1024
SCRUBBER_KEY = "detour.answer_scrubber"
BROKEN_KEY = "detour.answer_broken"
Decoder = Callable[[bytes, bool], bytes]  # (chunk, end) -> decoded bytes


def _needles(secrets: list[Secret]) -> list[Needle]:
    return [Needle(form, s.name, replace=True) for s in secrets for form in forms(s.value, s.placeholder)]


def _add(verdict: Verdict, field: str, names: list[str]) -> None:
    setattr(verdict, field, sorted({*(getattr(verdict, field) or []), *names}))


def _decoder(encoding: str) -> Decoder | None:
    """An incremental decoder for a streamed answer's Content-Encoding, or None if unknown."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return lambda data, end: data
    if encoding in ("gzip", "x-gzip", "deflate"):
        z = zlib.decompressobj(zlib.MAX_WBITS | 32)  # gzip or zlib, by the header
        return lambda data, end: z.decompress(data) + (z.flush() if end else b"")
    if encoding == "br":
        b = brotli.Decompressor()
        return lambda data, end: b.process(data) if data else b""
    if encoding == "zstd":
        d = zstandard.ZstdDecompressor().decompressobj()
        return lambda data, end: d.decompress(data) if data else b""
    return None


class StreamedAnswer:
    """A streamed answer decoded and scrubbed chunk by chunk; a chunk that cannot be decoded
    ends what is sent and marks the flow broken, so its `response` hook cuts the connection."""

    def __init__(self, flow: http.HTTPFlow, decoder: Decoder, replacer: ChunkReplacer) -> None:
        self.flow, self.decoder, self.replacer = flow, decoder, replacer

    def __call__(self, chunk: bytes) -> list[bytes]:
        if self.flow.metadata.get(BROKEN_KEY):
            return []
        try:
            decoded = self.decoder(chunk, not chunk)
        except (zlib.error, brotli.error, zstandard.ZstdError):
            self.flow.metadata[BROKEN_KEY] = True
            return []
        data = self.replacer.feed(decoded, end=not chunk)
        return [data] if data else []


class AnswerScrubber:
    def responseheaders(self, flow: http.HTTPFlow) -> None:
        secrets, verdict, response = flow.metadata.get(HOST_SECRETS_KEY), flow.metadata.get(METADATA_KEY), flow.response
        if not secrets or verdict is None or response is None:
            return
        replacer = ChunkReplacer(_needles(secrets), lambda name, _: _add(verdict, "scrubbed", [name]))
        self.scrub_headers(response.headers, replacer)
        flow.metadata[SCRUBBER_KEY] = replacer
        size = response.headers.get("content-length", "")
        bodiless = flow.request.method == "HEAD" or response.status_code in (101, 204, 304)
        if bodiless or (size.isdigit() and int(size) <= STREAM_BYTES):
            return  # a switch is judged at `response`; a small answer is read whole and scrubbed there
        decoder = _decoder(response.headers.get("content-encoding", ""))
        if decoder is None:
            return  # read whole, then judged unchecked
        response.headers.pop("content-encoding", None)
        response.headers.pop("content-length", None)
        if flow.request.http_version == "HTTP/1.1" and "chunked" not in response.headers.get("transfer-encoding", ""):
            response.headers["transfer-encoding"] = "chunked"
        response.stream = StreamedAnswer(flow, decoder, replacer)

    def response(self, flow: http.HTTPFlow) -> None:
        replacer: ChunkReplacer | None = flow.metadata.pop(SCRUBBER_KEY, None)
        verdict, response = flow.metadata.get(METADATA_KEY), flow.response
        if replacer is None or verdict is None or response is None:
            return
        if flow.metadata.pop(BROKEN_KEY, False):
            verdict.reason = "the answer's compression broke off while it streamed: cut off there, unchecked"
            flow.kill()
            return
        if response.trailers:
            self.scrub_headers(response.trailers, replacer)
        if response.stream:
            return
        reason = self.unreadable(response)
        if reason is None:
            body = response.raw_content or b""
            scrubbed = replacer.whole(body)
            if scrubbed != body:
                response.content = scrubbed
            return
        secrets: list[Secret] = flow.metadata[HOST_SECRETS_KEY]
        names = [s.name for s in secrets]
        if all(s.unchecked == "pass" for s in secrets):
            _add(verdict, "unchecked", names)
            verdict.reason = f"answer passed unchecked for secrets: {reason}"
            return
        verdict.reason = f"answer refused: {reason}, so it cannot be checked for the secrets {', '.join(names)}"
        flow.websocket = None
        flow.response = json_response(502, "allowed", {"error": "answer_not_checkable", "reason": verdict.reason})

    @staticmethod
    def unreadable(response: http.Response) -> str | None:
        """Why the answer cannot be checked; None once it is decoded and can be."""
        if response.status_code == 101:
            return f"the host switched protocols (to {response.headers.get('upgrade') or 'another protocol'})"
        try:
            response.decode()
        except ValueError:
            return f"its Content-Encoding {response.headers.get('content-encoding')!r} cannot be decoded"
        return None

    @staticmethod
    def scrub_headers(headers: http.Headers, replacer: ChunkReplacer) -> None:
        headers.fields = tuple((name, replacer.whole(value)) for name, value in headers.fields)
