"""One spelling per host. The proxy's routing, the policy's allow list and rules, the secrets'
hosts and the audit records all compare hosts through `normal_host`, so that no two of them
can read one name two ways (the way an octal `0177.0.0.1` once passed a policy as a name and
reached the proxy's own machine as an address).

A host is compared in lower case, without brackets, a trailing dot or an IPv6 zone id, and in
its IDNA (punycode) ASCII form. A name that a resolver or a URL parser would read as an address
is one: `inet_aton`'s spellings (octal, hex, integer, `127.1`), any name whose last label is a
number (WHATWG's URL parser reads those as IPv4 or refuses them), and IPv6 (an IPv4-mapped one
is its IPv4 address).
"""

from __future__ import annotations

import ipaddress
import re
import socket
from functools import lru_cache

import idna

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

# WHATWG's "ends in a number": decimal digits, or 0x and hex digits (an empty 0x too).
_NUMBER = re.compile(r"[0-9]+|0x[0-9a-f]*")


def _bare(host: str) -> str:
    """Lower case, brackets and trailing dots off, and a non-ASCII name in its IDNA form (UTS #46
    maps full-width digits and dots too, so it comes before any address check), trimmed again."""
    text = _trimmed(host.lower())
    if not text.isascii():
        try:
            text = _trimmed(idna.encode(text, uts46=True).decode())
        except idna.IDNAError:
            pass
    return text


def _trimmed(text: str) -> str:
    while (trimmed := text.strip("[]").rstrip(".")) != text:
        text = trimmed
    return text


def _address(text: str) -> Address | None:
    """The address a bare host spells, if it spells one."""
    if ":" in text:
        try:
            six = ipaddress.IPv6Address(text.split("%", 1)[0])
        except ValueError:
            return None
        return six.ipv4_mapped or six
    if not _NUMBER.fullmatch(text.rsplit(".", 1)[-1]):
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(text))
    except (OSError, ValueError):
        return None


def is_address(host: str) -> bool:
    """Whether `host` is an IP address in any spelling, or a name no URL parser keeps as a name
    (it ends in a number: `foo.123`, `1.2.3.4.5`). Such a host is never a policy's to name."""
    text = _bare(host)
    return _address(text) is not None or bool(_NUMBER.fullmatch(text.rsplit(".", 1)[-1]))


@lru_cache(maxsize=4096)  # a pure function the proxy asks several times for every connection
def normal_host(host: str) -> str:
    """The one spelling of `host` that detour compares and records: an address as its canonical
    text (`0x7f.1` -> `127.0.0.1`, `[::ffff:7f00:1]` -> `127.0.0.1`, `fe80::1%eth0` -> `fe80::1`),
    a name in lower-case ASCII without its trailing dot (`Bücher.example.` -> `xn--bcher-kva.example`).
    Never raises: a name that is neither stays as its lower-case text, which matches nothing."""
    text = _bare(host)
    address = _address(text)
    return str(address) if address is not None else text


def normal_pattern(pattern: str) -> str:
    """A host or `*.domain` (every name below domain) in its one spelling."""
    return "*." + normal_host(pattern[2:]) if pattern.startswith("*.") else normal_host(pattern)


def host_matches(host: str, pattern: str) -> bool:
    """Whether `host` (already in its one spelling) is `pattern` or, for `*.domain`, a name
    one label or more below domain."""
    if pattern.startswith("*."):
        return host.endswith(pattern[1:]) and len(host) > len(pattern) - 1
    return host == pattern


def path_matches(path: str, prefix: str) -> bool:
    """Whether `path` starts with a route's path `prefix`, in which a `*` segment stands for any
    one segment (Microsoft Graph's packs share graph.microsoft.com by `/v1.0/users/*/messages`)."""
    if "*" not in prefix:
        return path.startswith(prefix)
    return _prefix_pattern(prefix).match(path) is not None


@lru_cache(maxsize=256)
def _prefix_pattern(prefix: str) -> re.Pattern[str]:
    return re.compile("/".join("[^/]+" if part == "*" else re.escape(part) for part in prefix.split("/")))
