"""Files' bytes: kept in the environment's database (its `blobs`, by SHA-1), read through to
the built-in template's `contents/` folder for what the seed holds. Contents are immutable
by their hash, so environments share the template's copy without seeing each other's."""

from __future__ import annotations

import hashlib
import re

from mock_services.box.pack import PACK
from mock_services.store import EnvState

SHA1 = re.compile(r"^[0-9a-f]{40}$")
SEEDED = PACK.templates / "contents"


def read(state: EnvState, sha1: str | None) -> bytes | None:
    if not sha1 or not SHA1.fullmatch(sha1):
        return None
    kept = state.blob(sha1)
    if kept is not None:
        return kept
    seeded = SEEDED / sha1
    return seeded.read_bytes() if seeded.is_file() else None


def keep(state: EnvState, data: bytes) -> str:
    """Store `data`; its SHA-1, which names it."""
    sha1 = hashlib.sha1(data, usedforsecurity=False).hexdigest()
    if not (SEEDED / sha1).is_file():
        state.put_blob(sha1, data)
    return sha1
