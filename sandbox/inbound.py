"""A connection into a running sandbox's own network, from detour's side: how an environment's
events reach a listener in the sandbox (a webhook's POST), though the sandbox has no inbound
route from anywhere. The connection is made from a thread that enters the sandbox's network
namespace, so `localhost:3000` means the sandbox's own loopback, as the agent registered it.

Entering a network namespace takes a capability, which a proxy under its own user
(detour/proxy_user.py) does not have: its stack's root process then runs a broker on a unix
socket only the proxy's group may use, which makes the connection into a sandbox's own
loopback (nothing else) and hands the socket over (SCM_RIGHTS). The same broker opens the
upstreams a policy passes through for that proxy (`open_upstream`, detour/proxy_egress.py)."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path

from detour_core.paths import SANDBOX_ADDRESSES
from sandbox.addressing import SANDBOX_NET
from sandbox.netns import NETNS_PREFIX, SUBNETS

NETNS_DIR = Path("/run/netns")


def sandbox_netns(env_id: str) -> Path | None:
    """The network namespace of the running sandbox of `env_id`, or None (none runs now)."""
    if not SANDBOX_ADDRESSES.is_dir():
        return None
    for entry in SANDBOX_ADDRESSES.iterdir():
        try:
            if entry.read_text() != env_id:
                continue
            index = (int(ipaddress.IPv4Address(entry.name)) - int(SANDBOX_NET.network_address)) // 4
            found = NETNS_DIR / (NETNS_PREFIX + (SUBNETS / str(index)).read_text().strip())
        except (OSError, ValueError):
            continue
        if found.exists():
            return found
    return None


def connect_inside(netns: Path, host: str, port: int, timeout: float) -> socket.socket:
    """A TCP connection to host:port as seen from inside `netns` (the thread that makes it
    enters the namespace and ends; the socket stays in it), through the broker when this
    process may not enter it."""
    broker = os.environ.get(InboundBroker.VARIABLE)
    if broker and os.geteuid() != 0:
        return _through_broker(Path(broker), netns, port, timeout)
    made: dict[str, object] = {}

    def enter() -> None:
        try:
            fd = os.open(netns, os.O_RDONLY)
            try:
                os.setns(fd, os.CLONE_NEWNET)
            finally:
                os.close(fd)
            made["socket"] = socket.create_connection((host, port), timeout)
        except OSError as e:
            made["error"] = e
    thread = threading.Thread(target=enter, name="inbound-connect")
    thread.start()
    thread.join()
    if "error" in made:
        raise made["error"]  # type: ignore[misc]
    return made["socket"]  # type: ignore[return-value]


def _through_broker(broker: Path, netns: Path, port: int, timeout: float) -> socket.socket:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as asking:
        asking.settimeout(timeout)
        asking.connect(str(broker))
        asking.sendall(json.dumps({"netns": str(netns), "port": port}).encode() + b"\n")
        answer, fds, _, _ = socket.recv_fds(asking, 1024, 1)
    if not fds:
        raise ConnectionRefusedError(answer.decode(errors="replace") or "the inbound broker refused")
    made = socket.socket(fileno=fds[0])
    made.settimeout(timeout)
    return made


async def open_upstream(host: str, port: int) -> list[str]:
    """The addresses the stack's root process resolved `host` to and let this proxy's user
    reach on `port` (a policy passes the name through), or none: refused, or no broker (a proxy
    that may connect where it likes resolves names itself)."""
    broker = os.environ.get(InboundBroker.VARIABLE)
    if not broker or os.geteuid() == 0:
        return []
    try:
        reader, writer = await asyncio.open_unix_connection(broker)
        try:
            writer.write(json.dumps({"host": host, "port": port}).encode() + b"\n")
            answer = json.loads(await asyncio.wait_for(reader.readline(), InboundBroker.TIMEOUT_S))
        finally:
            writer.close()
    except (OSError, ValueError, asyncio.TimeoutError):
        return []
    return [str(a) for a in answer.get("addresses", [])] if isinstance(answer, dict) else []


class InboundBroker:
    """Connections into sandboxes' own loopback for a proxy that may not enter their network
    namespaces: a unix socket (0660, the proxy's group) served by a thread of the stack."""

    VARIABLE = "DETOUR_INBOUND_BROKER"
    TIMEOUT_S = 10.0

    def __init__(self, path: Path, gid: int) -> None:
        self.path = path
        self.upstreams: Callable[[str, int], list[str]] | None = None  # opens what a policy passes through
        path.unlink(missing_ok=True)
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(str(path))
        os.chown(path, 0, gid)
        os.chmod(path, 0o660)
        self.listener.listen(64)
        threading.Thread(target=self._serve, name="inbound-broker", daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                asked, _ = self.listener.accept()
            except OSError:  # closed
                return
            threading.Thread(target=self._answer, args=(asked,), name="inbound-broker-answer", daemon=True).start()

    def _answer(self, asked: socket.socket) -> None:
        with asked:
            try:
                asked.settimeout(self.TIMEOUT_S)
                request = json.loads(asked.makefile("rb").readline())
                if "host" in request:
                    self._open_upstream(asked, str(request["host"]), int(request["port"]))
                    return
                netns, port = Path(request["netns"]), int(request["port"])
                if netns.parent != NETNS_DIR or not netns.name.startswith(NETNS_PREFIX) or not 0 < port < 65536:
                    raise ValueError(f"not a sandbox's loopback: {netns}:{port}")
                with connect_inside(netns, "127.0.0.1", port, self.TIMEOUT_S) as made:
                    socket.send_fds(asked, [b"ok"], [made.fileno()])
            except (OSError, ValueError, KeyError, TypeError) as e:
                with contextlib.suppress(OSError):
                    asked.sendall(str(e).encode()[:1000])

    def _open_upstream(self, asked: socket.socket, host: str, port: int) -> None:
        try:
            if self.upstreams is None:
                raise PermissionError("this stack opens no upstreams")
            answer: dict[str, object] = {"addresses": self.upstreams(host, port)}
        except (PermissionError, ValueError) as e:
            answer = {"refused": str(e)}
        asked.sendall(json.dumps(answer).encode() + b"\n")

    def close(self) -> None:
        self.listener.close()
        self.path.unlink(missing_ok=True)
