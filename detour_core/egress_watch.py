"""What a request to a host that a policy opens carries out: credentials found in its URL,
headers, body or WebSocket messages. Egress a policy allows goes to the real host, so the proxy
still looks at it: detect-secrets' plugins (the vendors' token shapes: AWS, GitHub, GitLab,
Slack, Stripe, OpenAI, JWTs, private keys, ...) read each part as it is and as it decodes (URL
escapes, base64, hex), and the environment's own secret values are looked for as they are.

Besides credentials, a few kinds of sensitive data that no vendor issues are looked for by shape
(payment card numbers that pass Luhn, IBANs that pass their check, Bitcoin addresses and keys),
`sk-` secret keys in the shapes detect-secrets has not, any value under a credential's name
(`token=`, `password:`; detour_core.redaction's names), and two ways of hiding: URL escapes more
than two layers deep, and key-shaped text inside decoded data that is otherwise binary.

A finding is a short name (`AWS Access Key`, `secret GITHUB_TOKEN`), never the value: it goes
into the record, the 403 a `block` answers with, and the live view.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable
from functools import cache
from urllib.parse import unquote_plus, urlsplit

from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

from detour_core.redaction import secret_name

# Plugins that flag ordinary traffic: any long random-looking string, any `password=` word,
# any public address. The shapes of real credentials stay.
NOISY = frozenset({"Base64 High Entropy String", "Hex High Entropy String", "Secret Keyword", "Public IP (ipv4)"})
# Runs of base64 or hex long enough to hide a credential in.
ENCODED = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}|(?:[0-9a-fA-F]{2}){10,}")
HEX_SPACED = re.compile(r"(?:[0-9a-fA-F]{2}[-: ]){9,}[0-9a-fA-F]{2}")
LONGEST_PART = 1 << 20  # a part beyond this is read only up to it (bodies can be large)
# A client escapes a value once, twice when it is a URL inside a URL; more layers only hide it.
NESTED_ESCAPES = 3
MOST_ESCAPES = 8
# Text a key could be, inside data that is otherwise binary (bytes no text has): a blob that
# carries a key-shaped run of letters, digits and base64's signs is smuggling it.
BINARY = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\xff]")
KEY_IN_BINARY = re.compile(r"(?=[A-Za-z0-9+/=_-]*\d)(?=[A-Za-z0-9+/=_-]*[a-z])(?=[A-Za-z0-9+/=_-]*[A-Z])"
                           r"[A-Za-z0-9+/=_-]{32,}")


@cache
def _plugins() -> tuple:
    return tuple(cls() for kind, cls in sorted(get_mapping_from_secret_type_to_class().items()) if kind not in NOISY)


def _unescaped(text: str) -> list[str]:
    """The text and each layer of URL escapes taken off it, as often as it takes (to a bound)."""
    seen = [text]
    while len(seen) <= MOST_ESCAPES and (unescaped := unquote_plus(seen[-1])) != seen[-1]:
        seen.append(unescaped)
    return seen


def _decodings(seen: list[str]) -> Iterable[str]:
    """The layers of `_unescaped`, and each base64 or hex run in them (hex with `-`, `:` or spaces
    between its bytes too) that decodes to text."""
    yield from seen
    for layer in seen:
        for run in ENCODED.findall(layer) + HEX_SPACED.findall(layer):
            for decode in (_hex, _base64):
                if (plain := decode(run)) is not None:
                    yield plain


def _hex(run: str) -> str | None:
    try:
        return bytes.fromhex(re.sub("[-: ]", "", run)).decode("latin-1")  # text amid binary bytes too
    except ValueError:
        return None


def _base64(run: str) -> str | None:
    try:
        plain = base64.b64decode(run + "=" * (-len(run) % 4), altchars=b"-_" if "-" in run or "_" in run else None,
                                 validate=True)
        return plain.decode("utf-8") if plain.isascii() else None
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None


def _luhn(digits: str) -> bool:
    total = sum(int(d) if n % 2 == 0 else sum(divmod(int(d) * 2, 10)) for n, d in enumerate(reversed(digits)))
    return total % 10 == 0


def _iban(text: str) -> bool:
    moved = text[4:] + text[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


# Shapes detect-secrets has not, each with its check: (kind, pattern, check of the match).
DATA_SHAPES = (
    ("Payment card number", re.compile(r"\b(?:\d[ -]?){13,19}\b"), lambda m: _luhn(re.sub(r"[ -]", "", m))),
    ("IBAN", re.compile(r"\b[A-Z]{2}\d{2}[A-Z0-9]{11,30}\b"), _iban),
    ("Bitcoin address", re.compile(r"\b(?:bc1[02-9ac-hj-np-z]{25,59}|[13][1-9A-HJ-NP-Za-km-z]{25,34})\b"), bool),
    # GitHub's prefixes with a body shorter than detect-secrets' 36 (a cut or made-up token still leaks one)
    ("GitHub Token", re.compile(r"\bgh[pousr]_[A-Za-z0-9_]{30,}"), bool),
    ("Bitcoin private key (WIF)", re.compile(r"\b[5KL][1-9A-HJ-NP-Za-km-z]{50,51}\b"), bool),
    # `sk-` secret keys (OpenAI's sk-/sk-proj-, Anthropic's sk-ant-, and the many model APIs that
    # copied them), whose newer shapes detect-secrets has not: a long run of letters and digits
    ("Secret key (sk-)", re.compile(r"\bsk-(?:[a-z0-9]+-)*(?=[A-Za-z0-9_]*\d)(?=[A-Za-z0-9_]*[A-Za-z])"
                                    r"[A-Za-z0-9_]{20,}"), bool),
)
# A credential by its name (detour_core.redaction's names) as `name=value` or `name: value`, long
# enough to be one; the Authorization and Cookie headers, where an API opened to the agent expects
# its credential and session, are not findings by their own names (what they hold still is).
CARRIER_HEADERS = ("authorization:", "proxy-authorization:", "cookie:")
ENCODED_LABEL = re.compile(r"(?=.*\d)(?=.*[a-z])(?:[0-9a-f]{12,}|[a-z0-9_-]{16,})", re.I)
RANDOM_SEGMENT = re.compile(r"(?=.*\d)(?=.*[a-z])(?=.*[A-Z])[A-Za-z0-9]{24,}")
NAMED = re.compile(r"(?i)(?<![a-z0-9_-])([a-z][a-z0-9_-]{1,30})[\"']?\s*[:=]\s*[\"']?([^\s\"'&;,}]{8,})")


def _by_name(line: str) -> list[tuple[str, str]]:
    own_header = line.split(":", 1)[0].lower() if line.lower().startswith(CARRIER_HEADERS) else None
    return [(f"credential named {name.lower()}", value) for name, value in NAMED.findall(line)
            if secret_name(name) and name.lower() != own_header]


def url_findings(url: str) -> list[tuple[str, str]]:
    """Data carried in the shape of a URL rather than in its text: a host name below its domain
    made of encoded labels (hex or base32/64 runs, or four or more 8-character chunks), and a
    path segment of random-looking letters and digits."""
    try:
        parts = urlsplit(url)
        labels = (parts.hostname or "").split(".")[:-2]
    except ValueError:  # no URL parser reads it (`https://[`): its text was scanned all the same
        return []
    found = [("data in a host name", label) for label in labels if ENCODED_LABEL.fullmatch(label)]
    if len([label for label in labels if len(label) >= 8]) >= 4:
        found.append(("data in a host name", ".".join(labels)))
    found += [("random path segment", s) for s in parts.path.split("/") if RANDOM_SEGMENT.fullmatch(s)]
    return found


def findings(text: str, own: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """The credentials `text` carries, as (kind, value as found in some decoding), each once, in
    the order found; `own`: the environment's secrets, name -> value, found as they are."""
    found: list[tuple[str, str]] = []
    layers = _unescaped(text[:LONGEST_PART])
    if len(layers) > NESTED_ESCAPES:
        found.append((f"URL escapes {len(layers) - 1} layers deep", layers[-1]))
    for plain in _decodings(layers):
        if BINARY.search(plain):
            found += [("key-shaped text in binary data", m) for m in KEY_IN_BINARY.findall(plain)]
        for line in plain.splitlines() or [""]:
            for plugin in _plugins():
                found += [(secret.type, secret.secret_value or "")
                          for secret in plugin.analyze_line(filename="request", line=line, line_number=1)]
            found += [(kind, m) for kind, shape, check in DATA_SHAPES for m in shape.findall(line) if check(m)]
            found += _by_name(line)
        found += [(f"secret {name}", value) for name, value in (own or {}).items() if value and value in plain]
    return list(dict.fromkeys(found))


def kinds(found: list[tuple[str, str]]) -> list[str]:
    """What a record and a 403 name: the kinds, never the values."""
    return list(dict.fromkeys(kind for kind, _ in found))
