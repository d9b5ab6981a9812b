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
SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key",
                            "x-detour-credentials"})
SECRET_PARAMS = frozenset({"token", "access_token", "refresh_token", "api_key", "apikey", "key", "secret",
                           "password", "client_secret", "auth", "signature"})
# In JSON bodies, names as narrow as "key" are data (a Linear team's key), not credentials.
SECRET_FIELDS = SECRET_PARAMS - {"key", "auth", "signature"}
# Slack (xoxb-, xoxp-, xoxa-, xoxe-, xoxr-, xoxs-, xapp-) and Linear (lin_api_, lin_oauth_) tokens.
TOKEN_SHAPES = (r"xox[a-z]-[A-Za-z0-9-]+", r"xapp-[A-Za-z0-9-]+", r"lin_(?:api|oauth)_[A-Za-z0-9]+")


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
        return [(name, REDACTED if name.lower() in SECRET_HEADERS else self.text(value)) for name, value in pairs]

    def path(self, path: str) -> str:
        parts = urlsplit(path)
        if not parts.query:
            return self.text(path)
        return self.text(urlunsplit(parts._replace(query=self.query(parts.query))))

    def query(self, query: str) -> str:
        pairs = [(k, REDACTED if k.lower() in SECRET_PARAMS else v) for k, v in parse_qsl(query, keep_blank_values=True)]
        return urlencode(pairs, safe="[]")

    def body(self, content: bytes, content_type: str) -> bytes:
        """Secret fields by name where the body's type says how to find them, then token
        shapes anywhere (multipart, text, and bytes nobody could parse)."""
        kind = content_type.split(";")[0].strip().lower()
        if kind == "application/json" or kind.endswith("+json"):
            content = self._json(content)
        elif kind == "application/x-www-form-urlencoded":
            content = self.query(content.decode("utf-8", "replace")).encode()
        return self.raw(content)

    def _json(self, content: bytes) -> bytes:
        try:
            parsed = json.loads(content)
        except ValueError:
            return content
        return json.dumps(self._scrub(parsed), ensure_ascii=False).encode()

    def _scrub(self, value):
        if isinstance(value, dict):
            return {k: REDACTED if k.lower() in SECRET_FIELDS else self._scrub(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._scrub(v) for v in value]
        return value
