"""The forms a secret's value takes when a host echoes it: as it is, base64 (standard and URL-safe,
at each of the three alignments it can have inside a longer encoded text), URL-encoded (either
case of hex, `+` or `%20` for spaces), JSON-escaped and hex. The proxy turns each into the same
form of the placeholder, so a decoded answer shows the placeholder where the value was.

Inside longer base64, the characters at the value's two edges mix its bits with its neighbours':
a form matches those edge characters by the value's bits alone and keeps the neighbours' bits
when it puts the placeholder's in. Forms shorter than SHORTEST_FORM bytes would match ordinary
text, so they are not looked for (the value itself always is).
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote, quote_plus

SHORTEST_FORM = 8
STANDARD = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
URL_SAFE = STANDARD[:62] + b"-_"


@dataclass(frozen=True)
class Form:
    """One form of a value: a regular expression over bytes (`pattern`, at most `size` long, its
    fixed middle `core`) and what a match of it becomes (`replace`)."""
    pattern: bytes
    core: bytes
    size: int
    replace: Callable[[bytes], bytes]


def literal(value: bytes, placeholder: bytes) -> Form:
    return Form(re.escape(value), value, len(value), lambda _: placeholder)


def _edges(raw: bytes, offset: int) -> tuple[int, int, bytes, int, int]:
    """`raw` in base64 at `offset` bytes into a 3-byte group: (value bits in the leading edge
    character and their number, the core run, the same for the trailing edge)."""
    encoded = base64.b64encode(b"\0" * offset + raw)
    lead_bits = (6 - 8 * offset % 6) % 6
    start, end = -(-8 * offset // 6), 8 * (offset + len(raw)) // 6
    trail_bits = 8 * (offset + len(raw)) % 6
    lead = STANDARD.index(encoded[start - 1]) & ((1 << lead_bits) - 1) if lead_bits else 0
    trail = STANDARD.index(encoded[end]) >> (6 - trail_bits) if trail_bits else 0
    return lead, lead_bits, encoded[start:end], trail, trail_bits


def _base64(value: bytes, placeholder: bytes, offset: int, alphabet: bytes) -> Form:
    """The value's run at `offset`, edge characters matched by the value's bits alone; a match
    becomes the placeholder's run with each edge's neighbour bits kept."""
    lead, lead_bits, core, trail, trail_bits = _edges(value, offset)
    p_lead, _, p_core, p_trail, p_trail_bits = _edges(placeholder, offset)
    table = bytes.maketrans(STANDARD, alphabet)
    core, p_core = core.translate(table), p_core.translate(table)
    lead_set = bytes(c for i, c in enumerate(alphabet) if i & ((1 << lead_bits) - 1) == lead) if lead_bits else b""
    trail_set = bytes(c for i, c in enumerate(alphabet) if i >> (6 - trail_bits) == trail) if trail_bits else b""

    def replace(match: bytes) -> bytes:
        out = p_core
        if lead_bits:
            neighbour = alphabet.index(match[0]) >> lead_bits
            out = alphabet[(neighbour << lead_bits) | p_lead:][:1] + out
        if p_trail_bits:
            keep = 6 - p_trail_bits
            neighbour = alphabet.index(match[-1]) & ((1 << keep) - 1) if trail_bits == p_trail_bits else 0
            out += alphabet[(p_trail << keep) | neighbour:][:1]
        return out

    pattern = b"".join([b"[" + re.escape(lead_set) + b"]" if lead_set else b"", re.escape(core),
                        b"[" + re.escape(trail_set) + b"]" if trail_set else b""])
    return Form(pattern, core, len(core) + bool(lead_set) + bool(trail_set), replace)


def _hex_escapes(text: str) -> list[str]:
    """URL-encoded forms: quote's upper-case hex and its lower-case twin."""
    found = []
    for encoded in (quote(text, safe=""), quote(text, safe="/"), quote_plus(text)):
        parts = encoded.split("%")
        found += [encoded, parts[0] + "".join("%" + p[:2].lower() + p[2:] for p in parts[1:])]
    return found


def _text_forms(value: str) -> list[str]:
    escaped = json.dumps(value)[1:-1]
    hexed = binascii.hexlify(value.encode()).decode()
    return [value, escaped, json.dumps(value, ensure_ascii=False)[1:-1], escaped.replace("/", "\\/"),
            *_hex_escapes(value), hexed, hexed.upper()]


@functools.lru_cache(maxsize=256)
def forms(value: str, placeholder: str) -> tuple[Form, ...]:
    """Each form of `value` (as UTF-8 bytes) with what it becomes, each form once, longest first;
    made once per secret, not per answer."""
    found: dict[bytes, Form] = {}
    for v, p in zip(_text_forms(value), _text_forms(placeholder)):
        found.setdefault(v.encode(), literal(v.encode(), p.encode()))
    for offset in range(3):
        for alphabet in (STANDARD, URL_SAFE):
            form = _base64(value.encode(), placeholder.encode(), offset, alphabet)
            found.setdefault(form.pattern, form)
    raw = value.encode()
    return tuple(sorted((f for f in found.values() if f.core == raw or len(f.core) >= SHORTEST_FORM),
                        key=lambda f: -f.size))
