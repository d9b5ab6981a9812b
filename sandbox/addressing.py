"""Sandbox addresses: each namespace sandbox gets a /30 out of one private /16.

Index i owns 10.213.0.0 + 4*i: .1 is the host side of its veth (where the proxy and the
resolver appear) and .2 the sandbox. Both the namespace backend and the DNS responder
derive addresses here, so they cannot disagree.
"""

from __future__ import annotations

import ipaddress

SANDBOX_NET = ipaddress.IPv4Network("10.213.0.0/16")
SLOTS = SANDBOX_NET.num_addresses // 4


def subnet(index: int) -> str:
    return f"{SANDBOX_NET.network_address + 4 * index}/30"


def host_address(index: int) -> str:
    return str(SANDBOX_NET.network_address + 4 * index + 1)


def sandbox_address(index: int) -> str:
    return str(SANDBOX_NET.network_address + 4 * index + 2)


def host_for_sandbox(address: str) -> str | None:
    """The host side of the /30 that `address` sits in, if it is a sandbox address."""
    ip = ipaddress.IPv4Address(address)
    if ip not in SANDBOX_NET:
        return None
    return str(ipaddress.IPv4Address(int(ip) & ~3 | 1))
