"""Files' bytes as the packs that hold files keep them: in the environment's database (its
`blobs`, by SHA-1), read through to a built-in template's `contents/` folder for what the seed
holds (contents are immutable by their hash, so environments share the template's copy without
seeing each other's); and served whole or by the `Range` a client asks for."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from fastapi.responses import Response

from mock_services.store import EnvState

SHA1 = re.compile(r"^[0-9a-f]{40}$")
RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


def read(state: EnvState, sha1: str | None, seeded: Path) -> bytes | None:
    if not sha1 or not SHA1.fullmatch(sha1):
        return None
    kept = state.blob(sha1)
    if kept is not None:
        return kept
    path = seeded / sha1
    return path.read_bytes() if path.is_file() else None


def keep(state: EnvState, data: bytes, seeded: Path) -> str:
    """Store `data` (unless the template holds it); its SHA-1, which names it."""
    sha1 = hashlib.sha1(data, usedforsecurity=False).hexdigest()
    if not (seeded / sha1).is_file():
        state.put_blob(sha1, data)
    return sha1


def ranged(data: bytes, range_header: str | None, headers: dict[str, str], media_type: str) -> Response:
    """The bytes, whole or the one `Range` asked for (206; 416 where it starts past the end)."""
    headers = {**headers, "Accept-Ranges": "bytes"}
    matched = RANGE.match(range_header or "")
    if not matched or matched.groups() == ("", ""):
        return Response(data, media_type=media_type, headers=headers)
    first, last = matched.groups()
    start = int(first) if first else max(0, len(data) - int(last))
    end = min(int(last), len(data) - 1) if first and last else len(data) - 1
    if start >= len(data) or start > end:
        return Response(status_code=416, headers={"Content-Range": f"bytes */{len(data)}"})
    headers["Content-Range"] = f"bytes {start}-{end}/{len(data)}"
    return Response(data[start:end + 1], status_code=206, media_type=media_type, headers=headers)
