"""SQLite: one database file per environment.

A file per environment makes isolation structural (a handler can only reach the file of
the environment in its URL), makes deletion a file removal, and lets the state survive
restarts (WAL: a killed server loses no committed change).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from detour_core.credentials import validate_env_id
from mock_services.databases.base import Connection, Database, Row
from detour_core.errors import EnvironmentNotFound

SCHEMA = """
PRAGMA journal_mode = WAL;
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE rows (tbl TEXT NOT NULL, pk TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (tbl, pk));
CREATE TABLE baseline (tbl TEXT NOT NULL, pk TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (tbl, pk));
"""
# Created on first use, so environments made before runs existed get it too.
SNAPSHOTS = """
CREATE TABLE IF NOT EXISTS snapshots (run TEXT NOT NULL, tbl TEXT NOT NULL, pk TEXT NOT NULL, data TEXT NOT NULL,
                                      PRIMARY KEY (run, tbl, pk));
"""
BLOBS = "CREATE TABLE IF NOT EXISTS blobs (key TEXT PRIMARY KEY, data BLOB NOT NULL)"


class SqliteConnection(Connection):
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, args: tuple | list = ()) -> list[tuple]:
        return self.conn.execute(sql, args).fetchall()

    def prepare_snapshots(self) -> None:
        self.conn.execute(SNAPSHOTS)

    def prepare_blobs(self) -> None:
        self.conn.execute(BLOBS)

    def field_is(self, field: str) -> str:
        return f"json_extract(data, '$.{field}') IS ?"

    def field_value(self, value: Any) -> Any:
        return value

    def field_in(self, field: str, count: int) -> str:
        return f"json_extract(data, '$.{field}') IN ({', '.join('?' * count)})"


class SqliteDatabase(Database):
    name = "sqlite"

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, env_id: str) -> Path:
        return self.folder / f"{validate_env_id(env_id)}.sqlite"

    def exists(self, env_id: str) -> bool:
        return self._path(env_id).exists()

    def ids(self) -> list[str]:
        return sorted(path.stem for path in self.folder.glob("*.sqlite")) if self.folder.is_dir() else []

    def create(self, env_id: str, meta: dict[str, str], rows: Iterator[Row], template_key: str) -> None:
        """Written under another name and renamed: a half-made environment never shows."""
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self._path(env_id).with_suffix(".creating")
        tmp.unlink(missing_ok=True)
        conn = sqlite3.connect(tmp, isolation_level=None)
        try:
            conn.executescript(SCHEMA)
            conn.execute("BEGIN")
            conn.executemany("INSERT INTO meta VALUES (?, ?)", list(meta.items()))
            conn.executemany("INSERT INTO rows (tbl, pk, data) VALUES (?, ?, ?)", rows)
            conn.execute("INSERT INTO baseline SELECT tbl, pk, data FROM rows ORDER BY rowid")
            conn.execute("COMMIT")
        finally:
            conn.close()
        tmp.rename(self._path(env_id))

    @contextmanager
    def connect(self, env_id: str, write: bool) -> Iterator[Connection]:
        path = self._path(env_id)
        if not path.exists():
            raise EnvironmentNotFound(f"no environment {env_id!r}")
        conn = sqlite3.connect(path, isolation_level=None, timeout=30)
        try:
            if not write:
                yield SqliteConnection(conn)
                return
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield SqliteConnection(conn)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        except sqlite3.OperationalError:
            if not path.exists():
                raise EnvironmentNotFound(f"no environment {env_id!r}") from None
            raise
        finally:
            conn.close()

    def fork(self, source: str, env_id: str, meta: dict[str, str]) -> None:
        """SQLite's online backup copies the pages as one consistent read, whatever writes go on;
        the copy is made without syncing each step and synced once, whole, before it shows."""
        if not self.exists(source):
            raise EnvironmentNotFound(f"no environment {source!r}")
        tmp = self._path(env_id).with_suffix(".creating")
        tmp.unlink(missing_ok=True)
        with closing(sqlite3.connect(self._path(source), timeout=30)) as original, \
                closing(sqlite3.connect(tmp, isolation_level=None)) as copy:
            original.backup(copy)
            copy.execute("PRAGMA synchronous = OFF")
            copy.execute("BEGIN")
            copy.executemany("INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                             list(meta.items()))
            copy.execute("DELETE FROM baseline")
            copy.execute("INSERT INTO baseline SELECT tbl, pk, data FROM rows ORDER BY rowid")
            copy.execute("DROP TABLE IF EXISTS snapshots")
            copy.execute("COMMIT")
        with open(tmp, "rb+") as made:  # closing checkpointed the copy's log into it
            os.fsync(made.fileno())
        tmp.rename(self._path(env_id))

    def remove(self, env_id: str) -> None:
        path = self._path(env_id)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
