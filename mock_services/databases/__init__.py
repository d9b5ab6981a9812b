"""Where environments' rows live: one module per database, behind `Database`.

SQLite (the default) keeps a file per environment; Postgres (DETOUR_DATABASE_URL, or
`detour serve --database`) a schema per environment, cloned from a schema per template, so
that any number of replica servers on any machines share environments. Both hold the same
tables (meta, rows, baseline, snapshots) and answer the same SQL, but for the few fragments
a `Connection` spells in its own dialect.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import Any

from detour_core.errors import DetourError
from detour_core.paths import DATABASE_VARIABLE, StatePaths

Row = tuple[str, str, str]  # (table, primary key as JSON, row as JSON)


class InvalidDatabase(DetourError):
    pass


class Connection(ABC):
    """One environment's tables, in a transaction; SQL uses `?` placeholders."""

    @abstractmethod
    def execute(self, sql: str, args: tuple | list = ()) -> list[tuple]:
        ...

    def prepare_snapshots(self) -> None:
        """Before the first snapshot: a database made before runs existed may lack the table."""

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
    def create(self, env_id: str, meta: dict[str, str], rows: Iterator[Row], template_key: str) -> None:
        """The environment's tables, its rows and their baseline, all at once or not at all.
        `template_key` names the template's content: a database may keep a copy to clone."""

    @abstractmethod
    def connect(self, env_id: str, write: bool) -> AbstractContextManager[Connection]:
        """With write=True, one transaction at a time per environment."""

    @abstractmethod
    def remove(self, env_id: str) -> None:
        ...


def database_url(state: StatePaths) -> str | None:
    """$DETOUR_DATABASE_URL, else what `detour serve --database` recorded for this home."""
    if os.environ.get(DATABASE_VARIABLE):
        return os.environ[DATABASE_VARIABLE]
    try:
        return state.database_file.read_text().strip() or None
    except OSError:
        return None


def database_for(state: StatePaths) -> Database:
    url = database_url(state)
    if url is None:
        from mock_services.databases.sqlite import SqliteDatabase
        return SqliteDatabase(state.environments_dir)
    if not url.startswith(("postgresql://", "postgres://")):
        raise InvalidDatabase(f"the database URL must be postgresql://... (or none, for SQLite), not {url!r}")
    from mock_services.databases.postgres import PostgresDatabase
    return PostgresDatabase.shared(url)
