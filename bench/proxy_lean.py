"""A prototype under mitmproxy's floor (#52), in bench/ only, never in the product: a listener of
its own that does what a replica-bound flow needs and nothing else — CONNECT, TLS with one
context (the leaf signed once, session tickets on), HTTP/1.1 — and answers from the real replica
ASGI app in its own process (`inline_calls`, as the in-process replicas do). It checks the
sandbox's proxy credentials once per connection and routes by the CONNECT target and SNI, as
EnvAuth and the Router would; it keeps no audit record, policy, fault or secret: what it
measures is the cost of the carriage itself, so that the stack's goals (2 ms of CPU per call on a
new connection, 1 ms on a kept one) can be held against it.

    python -m bench.proxy_lean [CALLS]     # its rows alone (bench/proxy_floor.py prints them too)

The server also counts the CPU the replica app takes (process time around each app call: one
thread, one call at a time): the app's own share of a call, apart from the carriage.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hmac
import importlib.util
import os
import ssl
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from mitmproxy import certs

from certs.authority import CertificateAuthority
from detour_core.credentials import secret_for
from detour_core.paths import StatePaths
from detour_core.registry import replica_path, service_for

HEAD_END = b"\r\n\r\n"
STATS = b"GET /stats "  # the bench's question on the listener itself: the app's CPU seconds so far


def leaf_files(state: StatePaths, folder: Path) -> tuple[Path, Path]:
    """A leaf for Slack's hosts, signed once by detour's CA with its EC key (what mitmproxy's
    CertStore signs per host), written to `folder`: the chain's file and the key's."""
    paths = CertificateAuthority(state).ensure()
    key = serialization.load_pem_private_key(paths.key.read_bytes(), None)
    ca = x509.load_pem_x509_certificate(paths.cert.read_bytes())
    leaf = certs.dummy_cert(key, ca, "slack.com", ["slack.com", "*.slack.com"], "detour")
    chain, key_file = folder / "leaf.pem", folder / "key.pem"
    chain.write_bytes(leaf.to_pem() + paths.cert.read_bytes())
    key_file.write_bytes(paths.key.read_bytes())
    return chain, key_file


class Carriage:
    """One process's listener: the replica app, the TLS context, what the app has cost."""

    def __init__(self, state: StatePaths) -> None:
        from mock_services.app import create_replica_app
        self.state = state
        self.app = create_replica_app(state)
        self.app.state.inline_calls = True
        self.tls = self.context(state)
        self.app_cpu = 0.0
        self.secrets: dict[str, bytes] = {}

    @staticmethod
    def context(state: StatePaths) -> ssl.SSLContext:
        """One server context for every replica host (TLS 1.3 session tickets: on by default)."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.set_alpn_protocols(["http/1.1"])
        with tempfile.TemporaryDirectory(prefix="detour-lean-") as tmp:
            context.load_cert_chain(*leaf_files(state, Path(tmp)))
        return context

    def environment(self, head: bytes) -> str | None:
        """The environment the Proxy-Authorization names, if its secret is right (EnvAuth's check)."""
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"proxy-authorization":
                user, _, secret = base64.b64decode(value.strip().split(b" ", 1)[1]).partition(b":")
                env_id = user.decode()
                known = self.secrets.get(env_id)
                if known is None:
                    known = self.secrets[env_id] = secret_for(self.state, env_id).encode()
                return env_id if hmac.compare_digest(known, secret) else None
        return None

    async def connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(HEAD_END)
            if head.startswith(STATS):
                answer = repr(self.app_cpu).encode()
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(answer), answer))
                return
            host = head.split(b" ", 2)[1].decode().rpartition(":")[0]
            env_id = self.environment(head)
            if not head.startswith(b"CONNECT ") or env_id is None:
                writer.write(b"HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n")
                return
            if service_for(host, "/") is None:  # the product hands every other flow to mitmproxy
                writer.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
                return
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await writer.start_tls(self.tls)
            sni = writer.get_extra_info("ssl_object").server_hostname
            if sni not in (None, host):
                return  # domain fronting: the Router denies it
            while await self.request(reader, writer, host, env_id):
                pass
        except (asyncio.IncompleteReadError, ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()

    async def request(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str,
                      env_id: str) -> bool:
        """One HTTP/1.1 request on the tunnel, answered by the replica app; False at its end."""
        head = await reader.readuntil(HEAD_END)
        request_line, *lines = head[:-4].split(b"\r\n")
        method, target, _ = request_line.decode().split(" ", 2)
        headers = [(n.strip().lower(), v.strip()) for n, _, v in (line.partition(b":") for line in lines)]
        fields = dict(headers)
        body = await reader.readexactly(int(fields.get(b"content-length", b"0")))
        path, _, query = target.partition("?")
        service = service_for(host, path)
        routed = replica_path(env_id, service, path)
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
                 "scheme": "https", "path": routed, "raw_path": routed.encode(), "query_string": query.encode(),
                 "headers": headers, "server": ("127.0.0.1", 443), "client": ("127.0.0.1", 0), "root_path": ""}
        answer: dict = {"body": []}

        async def receive() -> dict:
            return {"type": "http.request", "body": body, "more_body": False}

        async def send(message: dict) -> None:
            if message["type"] == "http.response.start":
                answer.update(status=message["status"], headers=message.get("headers", []))
            else:
                answer["body"].append(message.get("body", b""))

        started = time.process_time()
        await self.app(scope, receive, send)
        self.app_cpu += time.process_time() - started
        content = b"".join(answer["body"])
        keep = fields.get(b"connection", b"").lower() != b"close"
        out = [b"HTTP/1.1 %d OK" % answer["status"]]
        out += [n + b": " + v for n, v in answer["headers"] if n.lower() not in (b"content-length", b"connection")]
        out += [b"content-length: %d" % len(content), b"connection: " + (b"keep-alive" if keep else b"close")]
        writer.write(b"\r\n".join(out) + HEAD_END + content)
        await writer.drain()
        return keep


async def serve(port: int, home: Path) -> None:
    carriage = Carriage(StatePaths(home))
    server = await asyncio.start_server(carriage.connection, "127.0.0.1", port)
    async with server:
        await server.serve_forever()


def app_cpu(proxy: str) -> float:
    """The replica app's CPU seconds so far in the prototype at `proxy` (its URL without credentials)."""
    import httpx
    return float(httpx.get(proxy + "/stats").text)


@contextlib.contextmanager
def lean_stack(state: StatePaths, env_id: str, loop: str) -> Iterator[tuple[str, str, str, psutil.Process]]:
    """The prototype in a process of its own on `loop` ("asyncio" or "uvloop"): its URL, that URL
    with the environment's credentials, the CA certificate to trust, and the process."""
    from bench.proxy_floor import LOOPBACK, free_port, started
    port = free_port()
    argv = [sys.executable, "-m", "bench.proxy_lean", "serve", str(port), str(state.home), loop]
    with started(argv, port) as process:
        yield (f"http://{LOOPBACK}:{port}", f"http://{env_id}:{secret_for(state, env_id)}@{LOOPBACK}:{port}",
               str(CertificateAuthority(state).ensure().cert), process)


def loops() -> list[str]:
    """asyncio's own loop, and uvloop's where it is installed (detour does not ship it)."""
    return ["asyncio"] + (["uvloop"] if importlib.util.find_spec("uvloop") else [])


def bench_proxy_lean(calls: int = 300) -> None:
    """The prototype's CPU per call, whole and the replica app's share, for both client ways."""
    from bench.common import AUTH
    from bench.proxy_floor import per_call_ms, ways
    from mock_services.store import EnvironmentStore
    with tempfile.TemporaryDirectory(prefix="detour-lean-") as tmp:
        state = StatePaths(Path(tmp)).ensure()
        env_id = EnvironmentStore(state).create("slack_default").env_id
        for loop in loops():
            with lean_stack(state, env_id, loop) as (base, proxy, cert, process):
                for label, way in ways(proxy, cert, "https://slack.com/api/auth.test", calls, AUTH).items():
                    way()  # warm: the environment's connection, the app's first call
                    before = app_cpu(base)
                    (total,) = per_call_ms([process], way, calls, warm=False)
                    app_ms = (app_cpu(base) - before) / calls * 1000
                    print(f"  prototype: a listener of its own ({loop}) + the replica app in process, {label:<25}: "
                          f"{total:5.2f} ms (carriage {total - app_ms:4.2f}, replica app {app_ms:4.2f}; n={calls}; "
                          f"load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        if sys.argv[4] == "uvloop":
            import uvloop
            uvloop.install()
        asyncio.run(serve(int(sys.argv[2]), Path(sys.argv[3])))
    else:
        bench_proxy_lean(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
