"""Replica-bound tunnels carried outside mitmproxy's layers, on the regular-mode port (#52).

mitmproxy's layers cost ~5 ms of CPU a call on a new connection and ~1.3 ms on a kept one before
any addon runs (docs/benchmarks/rollout-breakdown.md); most of a rollout's calls are plain HTTPS
requests to a replica. This addon takes each connection to the regular-mode port first: a
`CONNECT` to a replicated host on 443 whose credentials prove an environment that the fast path
may carry (no faults, no secrets, no policy that lets the host through to the real vendor) is
carried by fast_tunnel.py; anything else (another method, a host passed through or denied, a
wrong secret, bytes that are not HTTP) goes to mitmproxy's own handler untouched, the bytes
already read put back in front. The decisions are the addons' own: EnvAuth proves the
credentials, Policies, HeldServices and SecretInjector say what applies, the Router's registry
says where a request lands, RateLimits counts the fast path's requests with mitmproxy's, and the
AuditRecorder writes the record.

With `detour_fast_path` off every connection goes to mitmproxy, as before; `make bench` measures
both ways.
"""

from __future__ import annotations

import asyncio
import ipaddress
import ssl
import tempfile
from concurrent.futures import Future
from pathlib import Path

from cryptography import x509
from mitmproxy import connection, ctx
from mitmproxy.net.http.url import hostport
from mitmproxy.proxy.mode_servers import RegularInstance

from detour_core.hosts import is_address, normal_host
from detour_core.policy import Policy
from detour_core.registry import is_replicated_host
from proxy_addons.fast_tunnel import READ_BYTES, TLS_PORT, Target, Tunnel
from proxy_addons.replicas_in_process import replica_app
from proxy_addons.routing import parse_address

HEAD_END = b"\r\n\r\n"
CONNECT = b"CONNECT "


class Prefixed:
    """A reader that gives back what the fast path read before handing the connection over."""

    def __init__(self, head: bytes, reader) -> None:
        self.head, self.reader = head, reader

    async def read(self, n: int = -1) -> bytes:
        if self.head:
            head, self.head = self.head, b""
            return head
        return await self.reader.read(n)


def _header(head: bytes, name: bytes) -> str | None:
    """The one value of header `name` in a request head (None where absent or repeated)."""
    values = []
    for line in head.split(b"\r\n")[1:]:
        field, _, value = line.partition(b":")
        if field.strip().lower() == name:
            values.append(value.strip())
    return values[0].decode("latin-1") if len(values) == 1 else None


def _near(peer: tuple | None) -> bool:
    """A sandbox's address (private or loopback): mitmproxy's Block addon judges any other."""
    try:
        address = ipaddress.ip_address(peer[0]) if peer else None
    except ValueError:
        return False
    return address is not None and (address.is_private or address.is_loopback)


class FastPath:
    def __init__(self) -> None:
        self.on = False
        self.app: Future | None = None
        self.replica_host = ""  # the Host header a routed request reaches the replica app with
        self.contexts: dict[tuple[str, ...], ssl.SSLContext] = {}
        self.relayed: dict[tuple, str | None] = {}  # (peer, sockname) of a relayed tunnel -> its SNI

    def load(self, loader) -> None:
        loader.add_option("detour_fast_path", bool, True,
                          "Carry replica-bound tunnels outside mitmproxy's layers (proxy_addons/fast_path.py).")
        if not getattr(RegularInstance.handle_stream, "detour_fast_path", False):
            RegularInstance.handle_stream = self.patched(RegularInstance.handle_stream)

    def configure(self, updated: set[str]) -> None:
        if "detour_replica" in updated and ctx.options.detour_replica:
            host, port = parse_address(ctx.options.detour_replica)
            self.replica_host = hostport("http", host, port)
        if "detour_fast_path" in updated and self.app is not None:
            self.on = ctx.options.detour_fast_path

    def running(self) -> None:
        """After the listeners open (the app's imports do not delay them); the options as started."""
        self.on = ctx.options.detour_fast_path
        addons = ctx.master.addons
        self.auth, self.policies, self.held = addons.get("envauth"), addons.get("policies"), addons.get("heldservices")
        self.secrets, self.limits = addons.get("secretinjector"), addons.get("ratelimits")
        self.audit, self.events = addons.get("auditrecorder"), addons.get("eventdelivery")
        self.certs = addons.get("tlsconfig").certstore
        if self.on:
            self.app = replica_app()

    def patched(self, original):
        """mitmproxy's regular-mode handler, with the fast path in front of it."""
        fast = self

        async def handle_stream(instance, reader, writer=None) -> None:
            if not fast.on or fast.app is None or writer is None:  # before running(), or off: mitmproxy's
                return await original(instance, reader, writer)
            await fast.handle(lambda r, w: original(instance, r, w), reader, writer)
        handle_stream.detour_fast_path = True
        return handle_stream

    async def handle(self, mitmproxy, reader, writer) -> None:
        """The connection's first request head decides who carries it."""
        head = await reader.read(READ_BYTES)  # what came first: a CONNECT waits for its whole head
        if head.startswith(CONNECT) and HEAD_END not in head:
            try:
                head += await reader.readuntil(HEAD_END)
            except asyncio.IncompleteReadError as e:
                head += e.partial
            except asyncio.LimitOverrunError:
                pass  # nothing more was taken from the reader
        peer = writer.get_extra_info("peername")
        target = self.target(head, peer) if head.endswith(HEAD_END) else None  # bytes behind it: mitmproxy's
        if target is None or not await self.loaded():
            return await mitmproxy(Prefixed(head, reader), writer)
        await Tunnel(self, target, reader, writer, mitmproxy).run()

    async def loaded(self) -> bool:
        """Whether the replica app is there to answer, once it has loaded: a tunnel that reached the
        proxy in the second or two the app takes waits for it, as a routed flow on mitmproxy's side
        does, rather than staying on mitmproxy's layers for its whole life (~3x the CPU a call)."""
        if not self.app.done():
            await asyncio.wait([asyncio.wrap_future(self.app)])
        return self.app.exception() is None

    def target(self, head: bytes, peer: tuple | None) -> Target | None:
        """The CONNECT's environment and host, where the fast path carries it; else None."""
        line = head.partition(b"\r\n")[0].split(b" ")
        if len(line) != 3 or line[0] != b"CONNECT" or line[2] != b"HTTP/1.1" or not _near(peer):
            return None
        name, _, port = line[1].decode("latin-1").rpartition(":")
        host = normal_host(name)
        authorization = _header(head, b"proxy-authorization")
        if port != str(TLS_PORT) or is_address(host) or not is_replicated_host(host) or authorization is None:
            return None
        env_id = self.auth.proven(authorization, peer)
        return Target(env_id, host, authorization) if env_id and self.policy(env_id) else None

    def policy(self, env_id: str) -> Policy | None:
        """The environment's policy where nothing in it needs mitmproxy's layers: no fault and no
        secret (a policy never lets a replicated host through to its vendor)."""
        policy = self.policies.for_env(env_id)
        return None if policy.faults or self.secrets.secrets_of(env_id) else policy

    def context(self, *names: str) -> ssl.SSLContext:
        """The server side of a tunnel: mitmproxy's certificate for `names` (the CONNECT's host, and
        an SNI that differs, as mitmproxy names both), signed once by detour's CA and kept in its
        store; HTTP/1.1 only, TLS 1.3 tickets on; made once for the same names."""
        found = self.contexts.get(names)
        if found is None:
            entry = self.certs.get_cert(names[0], [x509.DNSName(name) for name in names])
            found = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            found.set_alpn_protocols(["http/1.1"])
            found.num_tickets = 1  # enough for a client that resumes (~20 us a handshake for each more)
            found.sni_callback = lambda ssl_object, sni, _: self.sni_seen(ssl_object, sni, names[-1])
            with tempfile.TemporaryDirectory(prefix="detour-fast-") as folder:  # the stdlib loads files only
                chain, key = Path(folder) / "chain.pem", Path(folder) / "key.pem"
                chain.write_bytes(entry.cert.to_pem() + b"".join(c.to_pem() for c in entry.chain_certs))
                key.touch(0o600)
                key.write_bytes(_pem(entry.privatekey))
                found.load_cert_chain(chain, key)
            self.contexts[names] = found
        return found

    def sni_seen(self, ssl_object, sni: str | None, host: str) -> None:
        """Kept for the requests' checks; a name other than the CONNECT's gets a certificate for
        both, as mitmproxy gives it, so that the client's request reaches the Router's denial."""
        ssl_object.detour_sni = sni
        if sni and normal_host(sni) != host:
            ssl_object.context = self.context(normal_host(sni), host)

    def client_connected(self, client: connection.Client) -> None:
        """A relayed tunnel reaches mitmproxy as plain requests: its client keeps the SNI it sent,
        so the Router still checks it against the names the requests give."""
        key = (client.peername, client.sockname)
        if key in self.relayed:
            client.sni = self.relayed.pop(key)

    def wake(self) -> None:
        if self.events is not None:
            self.events.wake()


def _pem(key) -> bytes:
    from cryptography.hazmat.primitives import serialization
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())

