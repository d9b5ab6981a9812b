"""A connection into a running sandbox's own network, from detour's side: how an environment's
events reach a listener in the sandbox (a webhook's POST), though the sandbox has no inbound
route from anywhere. The connection is made from a thread that enters the sandbox's network
namespace, so `localhost:3000` means the sandbox's own loopback, as the agent registered it."""

from __future__ import annotations

import ipaddress
import os
import socket
import threading
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
    enters the namespace and ends; the socket stays in it)."""
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
