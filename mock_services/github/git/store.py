"""A repository's git data in the environment's database, as dulwich's server reads it.

Objects are content-addressed, so they live in the environment's `blobs` by their git id
(`git/<sha>`, stored in git's own loose form: `<type> <size>\\0<body>`), read through to the
seed's pack (`templates/git-objects`) that every environment of a built-in template shares;
what a push or the API writes lands in the environment alone. Refs are rows
(`github_refs`: repository, ref name, sha), so the diff shows a moved branch by name and sha.
"""

from __future__ import annotations

import atexit
from collections.abc import Iterator
from functools import cache

from dulwich.object_store import DiskObjectStore, MemoryObjectStore
from dulwich.objects import ShaFile, sha_to_hex
from dulwich.refs import DictRefsContainer
from dulwich.repo import MemoryRepo

from mock_services.github.pack import PACK
from mock_services.store import EnvState, Row

SEEDED = PACK.templates / "git-objects"
KEY = "git/"
REFS = "github_refs"
TYPE_NUMS = {b"commit": 1, b"tree": 2, b"blob": 3, b"tag": 4}


@cache
def seeded() -> DiskObjectStore | None:
    """The built-in templates' objects (read-only, shared by every environment). Its packs stay
    open for the process's life and are closed at exit, before shutdown unloads what dulwich's
    own last-chance close needs (it printed an ImportError at the end of each such process)."""
    if not SEEDED.is_dir():
        return None
    store = DiskObjectStore(str(SEEDED))
    atexit.register(store.close)
    return store


def _hex(sha: bytes) -> bytes:
    return sha_to_hex(sha) if len(sha) == 20 else sha


class EnvObjectStore(MemoryObjectStore):
    """dulwich's in-memory store with its storage swapped for the environment's blobs (its
    pack handling, which unpacks what a push sends object by object, is kept)."""

    def __init__(self, state: EnvState) -> None:
        super().__init__()
        self.state = state

    def _loose(self, sha: bytes) -> tuple[int, bytes] | None:
        kept = self.state.blob(KEY + _hex(sha).decode("ascii"))
        if kept is None:
            return None
        header, _, body = kept.partition(b"\0")
        return TYPE_NUMS[header.split(b" ", 1)[0]], body

    def contains_loose(self, sha: bytes) -> bool:
        if self.state.blob(KEY + _hex(sha).decode("ascii")) is not None:
            return True
        base = seeded()
        return base is not None and _hex(sha) in base

    def get_raw(self, name: bytes) -> tuple[int, bytes]:
        found = self._loose(name)
        if found is not None:
            return found
        base = seeded()
        if base is not None and _hex(name) in base:
            return base.get_raw(_hex(name))
        raise KeyError(_hex(name))

    def __getitem__(self, name: bytes) -> ShaFile:
        type_num, body = self.get_raw(name)
        return ShaFile.from_raw_string(type_num, body, sha=_hex(name))

    def __iter__(self) -> Iterator[bytes]:
        """The environment's blobs are not listed; only a walk from the refs finds objects."""
        raise NotImplementedError("an environment's objects are found by walking from its refs")

    def add_object(self, obj: ShaFile) -> None:
        if self.contains_loose(obj.id):
            return
        body = obj.as_raw_string()
        self.state.put_blob(KEY + obj.id.decode("ascii"), obj.type_name + b" %d\0" % len(body) + body)


class EnvRefs(DictRefsContainer):
    """One repository's refs, loaded from its rows; every change dulwich makes is written back."""

    def __init__(self, state: EnvState, repository_id: int, default_branch: str) -> None:
        self.state, self.repository_id = state, repository_id
        rows = {r["ref"].encode(): r["sha"].encode() for r in state.rows(REFS, repository_id=repository_id)}
        super().__init__(rows)
        if rows:
            self._refs[b"HEAD"] = b"ref: refs/heads/" + default_branch.encode()

    def _notify(self, ref: bytes, newsha: bytes | None) -> None:
        super()._notify(ref, newsha)
        if ref == b"HEAD":
            return
        name = ref.decode()
        row = self.state.first(REFS, repository_id=self.repository_id, ref=name)
        if newsha is None:
            if row is not None:
                self.state.delete(REFS, row)
        elif row is None:
            self.state.insert(REFS, {"repository_id": self.repository_id, "ref": name, "sha": newsha.decode()})
        else:
            self.state.update(REFS, {**row, "sha": newsha.decode()})


def open_repo(state: EnvState, repository: Row) -> MemoryRepo:
    """The repository as dulwich's server and object walks want it, over the environment's state."""
    repo = MemoryRepo()
    repo.object_store = EnvObjectStore(state)
    repo.refs = EnvRefs(state, repository["id"], repository["default_branch"])
    return repo
