"""Box files' bytes (mock_services/blobs.py), read through to the Box seed's `contents/` folder."""

from __future__ import annotations

from mock_services import blobs
from mock_services.box.pack import PACK
from mock_services.store import EnvState

SEEDED = PACK.templates / "contents"


def read(state: EnvState, sha1: str | None) -> bytes | None:
    return blobs.read(state, sha1, SEEDED)


def keep(state: EnvState, data: bytes) -> str:
    """Store `data`; its SHA-1, which names it."""
    return blobs.keep(state, data, SEEDED)
