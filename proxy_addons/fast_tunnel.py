"""One tunnel the fast path carries (fast_path.py): TLS with a context per host, HTTP/1.1 parsed by
httptools, and each request the Router would route answered by the replica app in this process,
then recorded as the AuditRecorder records any request.

A request the fast path does not answer itself (one the Router would deny, one over a limit, a
body of unknown length, a protocol switch, an MCP call, a policy rule that names it, a Host or SNI
that disagrees with the CONNECT) goes to mitmproxy's own regular-mode handler, and so does the
rest of its connection: the requests as a plain proxy's absolute-form requests carrying the
tunnel's credentials, its answers back over the tunnel's TLS, mitmproxy's client holding the
sandbox's address and SNI. mitmproxy's layers and every addon then decide them as they decide
any other request; answers the fast path owes go out first.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import ssl
import time
import urllib.parse
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Protocol

import httptools

from detour_core.audit import Verdict
from detour_core.hosts import normal_host
from detour_core.policy import DEFAULT_MAX_REQUEST_BYTES, Policy
from detour_core.registry import pack, replica_path, service_for
from proxy_addons.audit_recorder import AuditRecorder, Connection
from proxy_addons.fast_messages import Answer, Sent, failed
from proxy_addons.fast_relay import Pipe, RelayWriter
from proxy_addons.held_services import HeldServices
from proxy_addons.rate_limits import OverLimit, RateLimits
from proxy_addons.routing import header_host

TLS_PORT = 443  # the only port the fast path carries tunnels to
CONNECTED = b"HTTP/1.1 200 Connection established\r\n\r\n"  # what mitmproxy answers a CONNECT
READ_BYTES = 65536
NOT_CARRIED = (b"transfer-encoding", b"upgrade", b"expect")  # a body of unknown length, a switch, a wait
Handler = Callable[[object, object], Awaitable[None]]  # mitmproxy's regular-mode handler (reader, writer)
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Target:
    """What a CONNECT the fast path carries asked for."""
    env_id: str
    host: str
    authorization: str  # the tunnel's Proxy-Authorization: requests handed to mitmproxy carry it


class FastPath(Protocol):
    """What a tunnel asks of the fast path's addon (fast_path.py): the other addons' state."""
    app: Future | None
    replica_host: str
    relayed: dict[tuple, str | None]
    held: HeldServices
    limits: RateLimits
    audit: AuditRecorder

    def policy(self, env_id: str) -> Policy | None: ...

    def context(self, *names: str) -> ssl.SSLContext: ...

    def wake(self) -> None: ...


class Request:
    """One request as the parser hands it over."""

    def __init__(self) -> None:
        self.started = time.time()
        self.target, self.method, self.version = b"", b"", "1.1"
        self.headers: list[tuple[bytes, bytes]] = []
        self.body: list[bytes] = []
        self.keep = True
        self.verdict: Verdict | None = None  # set where the fast path answers it
        self.policy: Policy | None = None  # the environment's, where the fast path answers it
        self.size = 0

    @functools.cached_property
    def named(self) -> dict[bytes, list[bytes]]:
        """Each header's values by its lower-case name: asked only once the head is whole."""
        index: dict[bytes, list[bytes]] = {}
        for name, value in self.headers:
            index.setdefault(name.lower(), []).append(value)
        return index

    def header(self, name: bytes) -> bytes | None:
        """The one value of header `name` (None where absent or repeated)."""
        found = self.named.get(name)
        return found[0] if found is not None and len(found) == 1 else None


def handshake_error(error: ssl.SSLError, host: str) -> str:
    """Why a client broke off the handshake, in the words mitmproxy's TLS layer uses (the run's
    trust warnings read them from the record)."""
    alert = (error.reason or str(error)).lower().replace("_", " ")
    if any(words in alert for words in ("unknown ca", "bad certificate", "certificate unknown")):
        return f"The client does not trust the proxy's certificate for {host} ({alert})"
    return f"The client may not trust the proxy's certificate for {host} ({alert})"


class Tunnel:
    def __init__(self, fast: FastPath, target: Target, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter, mitmproxy: Handler) -> None:
        self.fast, self.target, self.reader, self.writer, self.mitmproxy = fast, target, reader, writer, mitmproxy
        self.peer, self.sockname = writer.get_extra_info("peername"), writer.get_extra_info("sockname")
        self.note = Connection(connect=(target.host, TLS_PORT), env_id=target.env_id)
        self.sni: str | None = None
        self.tls = self.recorded = self.raw = False
        self.parser = httptools.HttpRequestParser(self)
        self.current = Request()
        self.ready: list[Request] = []  # whole requests the fast path answers, in their order
        self.relay: Pipe | None = None  # what mitmproxy reads, once it carries the rest
        self.relay_writer: RelayWriter | None = None
        self.relay_task: asyncio.Future | None = None

    async def run(self) -> None:
        try:
            if await self.handshake():
                await self.carry()
        except (ConnectionError, ssl.SSLError, OSError):
            pass
        finally:
            await self.finish()

    async def handshake(self) -> bool:
        self.writer.write(CONNECTED)
        try:
            await self.writer.start_tls(self.fast.context(self.target.host))
        except ssl.SSLError as e:
            self.note.tls_error = handshake_error(e, self.target.host)
            return False
        except (ConnectionError, OSError):  # gone before a handshake: a tunnel closed without a request
            return False
        self.tls = True
        self.sni = getattr(self.writer.get_extra_info("ssl_object"), "detour_sni", None)
        return True

    async def carry(self) -> None:
        while data := await self.reader.read(READ_BYTES):
            if self.raw:
                self.to_mitmproxy(data)
                await self.relay.drained()
                continue
            try:
                self.parser.feed_data(data)
            except httptools.HttpParserUpgrade as e:  # after a switch, bytes go as they come
                self.raw = True
                self.to_mitmproxy(data[e.args[0]:])
            except httptools.HttpParserError:  # mitmproxy answers what it makes of them
                self.raw = True
                self.to_mitmproxy(data)
            if not await self.answer_ready():
                return
            if self.relay is not None:
                await self.relay.drained()

    async def answer_ready(self) -> bool:
        """The fast path's answers, in order, then mitmproxy's; whether the connection goes on."""
        keep = True
        while self.ready and keep:
            request = self.ready.pop(0)
            keep = await self.serve(request) if self.relay is None else self.hand_over(request)
        if self.relay_writer is not None:
            self.relay_writer.release()
        return keep

    # The parser's callbacks (httptools): they decide, at the head, who answers each request.

    def on_message_begin(self) -> None:
        self.current = Request()

    def on_url(self, url: bytes) -> None:
        self.current.target += url

    def on_header(self, name: bytes, value: bytes) -> None:
        self.current.headers.append((name, value))

    def on_headers_complete(self) -> None:
        request = self.current
        request.method, request.version = self.parser.get_method(), self.parser.get_http_version()
        request.keep = self.parser.should_keep_alive()
        request.verdict = self.carried(request) if self.relay is None else None
        if request.verdict is None:
            self.to_mitmproxy(self.absolute_head(request))

    def on_body(self, body: bytes) -> None:
        request = self.current
        if request.verdict is not None:
            request.body.append(body)
        elif body:
            chunked = request.header(b"transfer-encoding") is not None
            self.to_mitmproxy(b"%x\r\n%s\r\n" % (len(body), body) if chunked else body)

    def on_message_complete(self) -> None:
        request = self.current
        if request.verdict is not None:
            self.ready.append(request)
        elif request.header(b"transfer-encoding") is not None:
            self.to_mitmproxy(b"0\r\n\r\n")

    # The fast path's own requests

    def carried(self, request: Request) -> Verdict | None:
        """The Router's `routed` verdict where the fast path answers the request; None where
        anything about it needs mitmproxy's layers or another addon's answer."""
        host, env_id = self.target.host, self.target.env_id
        given = request.header(b"host")
        path = request.target.decode("utf-8", "surrogateescape")
        if given is None or not path.startswith("/") or any(request.header(n) is not None for n in NOT_CARRIED):
            return None
        if {normal_host(header_host(given.decode("latin-1"))), normal_host(self.sni or host)} != {host}:
            return None
        size = request.header(b"content-length") or b"0"
        policy = self.fast.policy(env_id)
        if not size.isdigit() or policy is None or int(size) > (policy.max_request_bytes or DEFAULT_MAX_REQUEST_BYTES):
            return None
        held = self.fast.held.of(env_id)
        service = service_for(host, path, held)
        if service is None or (held is not None and service not in held) or self.mcp(service, host + path) \
                or policy.rule_for(host, request.method.decode("latin-1"), path) is not None:
            return None
        request.policy, request.size = policy, int(size)
        return Verdict(decision="routed", env_id=env_id, host=host, port=TLS_PORT, scheme="https", path=path,
                       service=service)

    @staticmethod
    def mcp(service: str, at: str) -> bool:
        """A request to the vendor's MCP server: McpCalls names its call (and a GET holds a stream)."""
        surface = pack(service).mcp
        return surface is not None and any(at.startswith(entry) for entry in surface.routes())

    async def serve(self, request: Request) -> bool:
        """Answered by the replica app; whether the connection goes on."""
        assert request.policy is not None
        admitted = self.fast.limits.admit(self.target.env_id, self, request.policy, request.size)
        if isinstance(admitted, OverLimit):  # RateLimits answers it, paced as it paces its refusals
            return self.hand_over(request)
        if admitted:
            await asyncio.sleep(admitted)
        # Loaded before the fast path takes a connection (FastPath.loaded): no hop through the loop's
        # self-pipe as awaiting the thread's future would make. The scope is made right here.
        app = self.fast.app.result().app
        body = b"".join(request.body)
        answer = await self.call(app, request, body)
        self.record(request, body, answer)  # before the client has the answer, as a flow's response hook
        self.writer.write(answer.wire())
        await self.writer.drain()
        self.fast.wake()
        return request.keep and not answer.closes()

    async def call(self, app, request: Request, body: bytes) -> Answer:
        """The replica app's answer, reached as mitmproxy's ASGI bridge reaches it for a routed flow."""
        assert request.verdict is not None and request.verdict.service is not None
        routed = replica_path(self.target.env_id, request.verdict.service, request.verdict.path)
        path, _, query = routed.partition("?")
        host = self.fast.replica_host.encode()
        scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.1"}, "http_version": request.version,
                 "method": request.method.decode("latin-1"), "scheme": "http", "root_path": "",
                 "path": urllib.parse.unquote(path), "raw_path": path.encode("utf-8", "surrogateescape"),
                 "query_string": query.encode("utf-8", "surrogateescape"), "client": self.peer,
                 "headers": [(n.lower(), host if n.lower() == b"host" else v) for n, v in request.headers]}
        started: dict = {}
        chunks: list[bytes] = []
        sent = asyncio.Event()

        async def receive() -> dict:
            if "asked" not in started:
                started["asked"] = True
                return {"type": "http.request", "body": body, "more_body": False}
            await sent.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict) -> None:
            if message["type"] == "http.response.start":
                started.update(message)
            else:
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    sent.set()

        try:
            await app(scope, receive, send)
        except Exception:  # answered as the replica server's uvicorn answers an app's error
            log.exception("detour: the replica app failed on %s %s", scope["method"], routed)
            return failed()
        finally:
            sent.set()
        return Answer(started["status"], list(started.get("headers", [])), b"".join(chunks))

    def record(self, request: Request, body: bytes, answer: Answer) -> None:
        assert request.verdict is not None and request.policy is not None
        sent = Sent(request.method, request.version, request.headers, body, request.started)
        self.fast.audit.log_exchange(self, request.verdict, request.policy, sent, answer, client=self.client,
                                     mode="regular", request_bytes=len(body))
        self.recorded = True

    @property
    def client(self) -> str:
        return f"{self.peer[0]}:{self.peer[1]}" if self.peer else ""

    # mitmproxy's share

    def to_mitmproxy(self, data: bytes) -> None:
        """Bytes for mitmproxy's handler, started on the first: from here on it carries the rest."""
        if self.relay is None:
            self.relay = Pipe()
            self.relay_writer = RelayWriter(self.writer, self.peer, self.sockname)
            self.fast.relayed[(self.peer, self.sockname)] = self.sni
            self.relay_task = asyncio.ensure_future(self.mitmproxy(self.relay, self.relay_writer))
            self.relay_task.add_done_callback(lambda _: self.relay.closed())
        self.relay.feed(data)

    def hand_over(self, request: Request) -> bool:
        """A whole request the fast path took, handed to mitmproxy after all."""
        request.verdict = None
        self.to_mitmproxy(self.absolute_head(request) + b"".join(request.body))
        return True

    def absolute_head(self, request: Request) -> bytes:
        """The request as a plain proxy's client sends it: its URL whole, with the tunnel's credentials."""
        target = request.target
        url = b"https://" + self.target.host.encode() + target if target.startswith(b"/") else target
        lines = [b"%s %s HTTP/%s" % (request.method, url, request.version.encode())]
        lines += [n + b": " + v for n, v in request.headers if n.lower() != b"proxy-authorization"]
        lines.append(b"Proxy-Authorization: " + self.target.authorization.encode("latin-1"))
        return b"\r\n".join(lines) + b"\r\n\r\n"

    async def finish(self) -> None:
        """The connection's end: mitmproxy's share ends with it; a tunnel that carried no request
        is recorded as mitmproxy records one."""
        if self.relay is not None:
            self.relay_writer.release()
            self.relay.end()
            try:
                await self.relay_task
            except Exception:
                log.exception("detour: a relayed tunnel failed")
        elif not self.recorded:
            self.fast.audit.log_unrequested(self, self.note, self.client, "regular", self.sni or "", TLS_PORT, self.tls)
        self.fast.limits.client_disconnected(self)
        self.fast.relayed.pop((self.peer, self.sockname), None)
        self.writer.close()
