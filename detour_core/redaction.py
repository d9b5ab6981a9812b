"""What never reaches an audit record: credentials, wherever in a request or answer they sit.

The proxy redacts before it writes, so nothing here is ever on disk in clear: credential
headers entirely, credential parameters in query strings, form and JSON bodies by name, and
Slack and Linear tokens (and the user's own patterns) by shape anywhere in headers or bodies.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "[REDACTED]"
# One rule for every place a credential has a name: a header, a query or form parameter, a
# multipart part, a JSON field. Names are compared lower-cased with `-` read as `_`.
SECRET_NAMES = frozenset({"authorization", "proxy_authorization", "cookie", "set_cookie", "x_api_key",
                          "x_detour_credentials", "x_auth_token", "auth_token", "private_token", "token",
                          "access_token", "refresh_token", "id_token", "api_key", "apikey", "secret",
                          "client_secret", "password", "passwd"})
# Names too plain to be credentials in JSON, where they are data (a Linear team's `key`), but
# credentials as flat name=value pairs (Google's `?key=`).
FLAT_ONLY_NAMES = frozenset({"key", "auth", "signature", "sig"})
# Slack (xoxb-, xoxp-, xoxa-, xoxe-, xoxr-, xoxs-, xapp-) and Linear (lin_api_, lin_oauth_) tokens.
TOKEN_SHAPES = (r"xox[a-z]-[A-Za-z0-9-]+", r"xapp-[A-Za-z0-9-]+", r"lin_(?:api|oauth)_[A-Za-z0-9]+")
MULTIPART_NAME = re.compile(rb'(?im)^content-disposition:[^\r\n]*?\bname="([^"]*)"')


def secret_name(name: str, flat: bool = True) -> bool:
    """Whether a value under this name is a credential; `flat`: a name=value pair (header,
    query, form, multipart part), not a JSON field."""
    normal = name.strip().lower().replace("-", "_")
    return normal in SECRET_NAMES or (flat and normal in FLAT_ONLY_NAMES)


class Redactor:
    """One per proxy (the server's patterns) or per environment (plus its own)."""

    def __init__(self, patterns: Iterable[str] = ()) -> None:
        self.patterns = tuple(patterns)
        combined = "|".join(f"(?:{p})" for p in (*TOKEN_SHAPES, *self.patterns))
        self.text_shapes = re.compile(combined)
        self.byte_shapes = re.compile(combined.encode())

    def text(self, value: str) -> str:
        return self.text_shapes.sub(REDACTED, value)

    def raw(self, value: bytes) -> bytes:
        return self.byte_shapes.sub(REDACTED.encode(), value)

    def headers(self, pairs: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        return [(name, REDACTED if secret_name(name) else self.text(value)) for name, value in pairs]

    def path(self, path: str) -> str:
        parts = urlsplit(path)
        if not parts.query:
            return self.text(path)
        return self.text(urlunsplit(parts._replace(query=self.query(parts.query))))

    def query(self, query: str) -> str:
        pairs = [(k, REDACTED if secret_name(k) else v) for k, v in parse_qsl(query, keep_blank_values=True)]
        return urlencode(pairs, safe="[]")

    def body(self, content: bytes, content_type: str) -> bytes:
        """Secret fields by name where the body's type says how to find them, then token
        shapes anywhere (multipart, text, and bytes nobody could parse)."""
        kind = content_type.split(";")[0].strip().lower()
        if kind == "application/json" or kind.endswith("+json"):
            content = self._json(content)
        elif kind == "application/x-www-form-urlencoded":
            content = self.query(content.decode("utf-8", "replace")).encode()
        elif kind == "multipart/form-data":
            content = self._multipart(content, content_type)
        return self.raw(content)

    @staticmethod
    def _multipart(content: bytes, content_type: str) -> bytes:
        """Each part whose name is a credential keeps its headers and loses its value; the rest
        of the body stays byte for byte."""
        boundary = re.search(r'boundary="?([^";]+)"?', content_type, re.I)
        if not boundary:
            return content
        delimiter = b"--" + boundary.group(1).encode()
        parts = content.split(delimiter)
        for n, part in enumerate(parts[1:], 1):
            head, blank, value = part.partition(b"\r\n\r\n")
            name = MULTIPART_NAME.search(head)
            if blank and name and secret_name(name.group(1).decode("utf-8", "replace")):
                parts[n] = head + blank + REDACTED.encode() + (b"\r\n" if value.endswith(b"\r\n") else b"")
        return delimiter.join(parts)

    def _json(self, content: bytes) -> bytes:
        try:
            parsed = json.loads(content)
        except ValueError:
            return content
        return json.dumps(self._scrub(parsed), ensure_ascii=False).encode()

    def _scrub(self, value):
        if isinstance(value, dict):
            return {k: REDACTED if secret_name(k, flat=False) else self._scrub(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._scrub(v) for v in value]
        return value
