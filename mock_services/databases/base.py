"""What every database of environments' rows offers: `Database` and its `Connection`.
Both hold the same tables (meta, rows, baseline, snapshots) and answer the same SQL, but for
the few fragments a `Connection` spells in its own dialect.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import Any

from detour_core.errors import DetourError

Row = tuple[str, str, str]  # (table, primary key as JSON, row as JSON)


class InvalidDatabase(DetourError):
    pass


class DatabaseUnreachable(DetourError):
    """A database that refused or did not answer within a few seconds: said in one line."""


class Connection(ABC):
    """One environment's tables, in a transaction; SQL uses `?` placeholders."""

    @abstractmethod
    def execute(self, sql: str, args: tuple | list = ()) -> list[tuple]:
        ...

    def prepare_snapshots(self) -> None:
        """Before the first snapshot: a database made before runs existed may lack the table."""

    @abstractmethod
    def prepare_blobs(self) -> None:
        """Before contents are read or kept: the `blobs` table (key, bytes) is made on first use."""

    @abstractmethod
    def field_is(self, field: str) -> str:
        """A condition: the row's top-level JSON `field` equals the next parameter (missing = null)."""

    @abstractmethod
    def field_value(self, value: Any) -> Any:
        """The parameter for field_is and field_in."""

    @abstractmethod
    def field_in(self, field: str, count: int) -> str:
        ...


class Database(ABC):
    name: str

    @abstractmethod
    def exists(self, env_id: str) -> bool:
        ...

    @abstractmethod
    def ids(self) -> list[str]:
        ...

    @abstractmethod
    def create(self, env_id: str, meta: dict[str, str], rows: Iterator[Row], template_key: str,
               blobs: dict[str, bytes] | None = None) -> None:
        """The environment's tables, its rows and their baseline, and the contents its rows name
        (`blobs`), all at once or not at all. `template_key` names the template's content: a
        database may keep a copy to clone."""

    @abstractmethod
    def connect(self, env_id: str, write: bool) -> AbstractContextManager[Connection]:
        """With write=True, one transaction at a time per environment."""

    @abstractmethod
    def fork(self, source: str, env_id: str, meta: dict[str, str]) -> None:
        """A new environment holding `source`'s rows and contents as they are now, with `meta`
        over its meta and its baseline taken now (its diff starts at the fork), all at once."""

    @abstractmethod
    def remove(self, env_id: str) -> None:
        ...
