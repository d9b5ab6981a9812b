"""Request bodies as an operation's description says they are encoded: JSON (an object, or a
list for JSON Patch), a form, multipart form data (fields and files, as uploads send them) or
raw bytes (upload parts), and the parts of multipart/related (Google's media uploads). A body
that does not parse is the vendor's 400, never a 500."""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from python_multipart.exceptions import FormParserError
from python_multipart.multipart import FormParser, parse_options_header

from mock_services.rest.errors import RestError


@dataclass(frozen=True)
class Upload:
    """One file part of a multipart body."""

    filename: str
    content_type: str
    data: bytes


def _json(raw: bytes, allow_list: bool) -> Any:
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise RestError(400, "parseError", "Parse Error") from None
    if not isinstance(body, dict) and not (allow_list and isinstance(body, list)):
        raise RestError(400, "parseError", "Parse Error")
    return body


def _multipart(raw: bytes, content_type: str) -> dict[str, Any]:
    """Fields as text, files as `Upload`s, in the order they came (`__order__` keeps it)."""
    parts: dict[str, Any] = {"__order__": []}

    def on_field(found: Any) -> None:
        name = found.field_name.decode("utf-8", "replace")
        parts[name] = (found.value or b"").decode("utf-8", "replace")
        parts["__order__"].append(name)

    def on_file(found: Any) -> None:
        name = found.field_name.decode("utf-8", "replace")
        found.file_object.seek(0)
        parts[name] = Upload((found.file_name or b"").decode("utf-8", "replace"), "", found.file_object.read())
        parts["__order__"].append(name)

    _, options = parse_options_header(content_type)
    if not options.get(b"boundary"):
        raise RestError(400, "parseError", "Parse Error: a multipart body needs a boundary")
    try:
        parser = FormParser("multipart/form-data", on_field, on_file, boundary=options[b"boundary"],
                            config={"MAX_MEMORY_FILE_SIZE": 1 << 62})  # the body is in memory already
        parser.write(raw)
        parser.finalize()
    except (FormParserError, ValueError, AttributeError) as e:
        raise RestError(400, "parseError", f"Parse Error: {e}") from None
    return parts


def nested_form(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """`a[b][0]=x&tags[]=p&tags[]=q` (Stripe's clients, Rails' and PHP's style) as nested
    objects; `[]` appends and numbered keys stay keys (a schema reads them as a list)."""
    out: dict[str, Any] = {}
    for name, value in pairs:
        head, _, rest = name.partition("[")
        keys = [head, *(k.rstrip("]") for k in rest.split("[") if rest)] if rest else [head]
        node: Any = out
        for i, key in enumerate(keys):
            last = i == len(keys) - 1
            if isinstance(node, list):
                node.append(value if last else {})
                node = node[-1]
                continue
            if last:
                node[key] = value
            else:
                fresh: Any = [] if keys[i + 1] == "" else {}
                if not isinstance(node.get(key), dict | list):
                    node[key] = fresh
                node = node[key]
    return out


def related_parts(content_type: str, raw: bytes) -> list[tuple[dict[str, str], bytes]]:
    """The parts of a multipart/related body (Google's uploads: metadata, then media), each its
    headers (lowercase names) and its bytes as they came (base64 parts decoded)."""
    matched = re.search(r'boundary="?([^";]+)"?', content_type)
    if not content_type.startswith("multipart/related") or not matched:
        raise RestError(400, "badContent", "A multipart upload needs a multipart/related body with a boundary")
    parts = []
    for chunk in raw.split(b"--" + matched.group(1).encode())[1:]:
        if chunk.startswith(b"--"):
            break
        separator = b"\r\n\r\n" if b"\r\n\r\n" in chunk else b"\n\n"
        head, _, body = chunk.lstrip(b"\r\n").partition(separator)
        headers = {name.strip().lower(): value.strip() for name, _, value in
                   (line.partition(":") for line in head.decode("latin-1").splitlines() if ":" in line)}
        body = body[:-2] if body.endswith(b"\r\n") else body[:-1] if body.endswith(b"\n") else body
        if headers.get("content-transfer-encoding", "").lower() == "base64":
            try:
                body = base64.b64decode(body)
            except ValueError:
                raise RestError(400, "badContent", "A base64 part does not decode") from None
        parts.append((headers, body))
    return parts


def read_body(declared: str, content_type: str, raw: bytes) -> Any:
    """The body of a request whose operation declares `declared` and which came as `content_type`."""
    if declared == "application/octet-stream":
        return raw
    if not raw.strip():
        return {}
    if content_type.startswith("multipart/form-data"):
        return _multipart(raw, content_type)
    if content_type.startswith("application/x-www-form-urlencoded") and declared != "application/json":
        pairs = parse_qsl(raw.decode("utf-8", "replace"), keep_blank_values=True)
        return nested_form(pairs) if any("[" in name for name, _ in pairs) else dict(pairs)
    return _json(raw, allow_list=declared == "application/json-patch+json")
