"""What a request to a host that a policy opens carries out: credentials found in its URL,
headers, body or WebSocket messages. Egress a policy allows goes to the real host, so the proxy
still looks at it: detect-secrets' plugins (the vendors' token shapes: AWS, GitHub, GitLab,
Slack, Stripe, OpenAI, JWTs, private keys, ...) read each part as it is and as it decodes (URL
escapes, base64, hex), and the environment's own secret values are looked for as they are.

A finding is a short name (`AWS Access Key`, `secret GITHUB_TOKEN`), never the value: it goes
into the record, the 403 a `block` answers with, and the live view.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable
from functools import cache
from urllib.parse import unquote_plus

from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

# Plugins that flag ordinary traffic: any long random-looking string, any `password=` word,
# any public address. The shapes of real credentials stay.
NOISY = frozenset({"Base64 High Entropy String", "Hex High Entropy String", "Secret Keyword", "Public IP (ipv4)"})
# Runs of base64 or hex long enough to hide a credential in.
ENCODED = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}|(?:[0-9a-fA-F]{2}){10,}")
HEX_SPACED = re.compile(r"(?:[0-9a-fA-F]{2}[-: ]){9,}[0-9a-fA-F]{2}")
LONGEST_PART = 1 << 20  # a part beyond this is read only up to it (bodies can be large)


@cache
def _plugins() -> tuple:
    return tuple(cls() for kind, cls in sorted(get_mapping_from_secret_type_to_class().items()) if kind not in NOISY)


def _decodings(text: str) -> Iterable[str]:
    """The text, URL-unescaped as often as it takes (double and triple escapes), and each base64
    or hex run in those (hex with `-`, `:` or spaces between its bytes too) that decodes to text."""
    seen = [text]
    while len(seen) < 4 and (unescaped := unquote_plus(seen[-1])) != seen[-1]:
        seen.append(unescaped)
    yield from seen
    for layer in seen:
        for run in ENCODED.findall(layer) + HEX_SPACED.findall(layer):
            for decode in (_hex, _base64):
                if (plain := decode(run)) is not None:
                    yield plain


def _hex(run: str) -> str | None:
    try:
        return bytes.fromhex(re.sub("[-: ]", "", run)).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None


def _base64(run: str) -> str | None:
    try:
        plain = base64.b64decode(run + "=" * (-len(run) % 4), altchars=b"-_" if "-" in run or "_" in run else None,
                                 validate=True)
        return plain.decode("utf-8") if plain.isascii() else None
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None


def findings(text: str, own: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """The credentials `text` carries, as (kind, value as found in some decoding), each once, in
    the order found; `own`: the environment's secrets, name -> value, found as they are."""
    found: list[tuple[str, str]] = []
    for plain in _decodings(text[:LONGEST_PART]):
        for line in plain.splitlines() or [""]:
            for plugin in _plugins():
                found += [(secret.type, secret.secret_value or "")
                          for secret in plugin.analyze_line(filename="request", line=line, line_number=1)]
        found += [(f"secret {name}", value) for name, value in (own or {}).items() if value and value in plain]
    return list(dict.fromkeys(found))


def kinds(found: list[tuple[str, str]]) -> list[str]:
    """What a record and a 403 name: the kinds, never the values."""
    return list(dict.fromkeys(kind for kind, _ in found))
