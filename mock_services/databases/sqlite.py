"""SQLite: one database file per environment.

A file per environment makes isolation structural (a handler can only reach the file of
the environment in its URL), makes deletion a file removal, and lets the state survive
restarts (WAL: a killed server loses no committed change).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from detour_core.credentials import validate_env_id
from mock_services.databases.base import Connection, Database, Row
from mock_services.databases.sqlite_connections import KEPT
from detour_core.errors import EnvironmentNotFound

SCHEMA = """
PRAGMA journal_mode = WAL;
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE rows (tbl TEXT NOT NULL, pk TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (tbl, pk));
CREATE TABLE baseline (tbl TEXT NOT NULL, pk TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (tbl, pk));
"""
# An environment's file (and the log SQLite makes beside it, which takes its mode) is writable by
# the folder's group: a proxy under its own user (detour/proxy_user.py) counts faults in it.
SHARED = 0o660
TEMPLATES = ".templates"  # beside the environments' files: one database per template content

# Created on first use, so environments made before runs existed get it too.
SNAPSHOTS = """
CREATE TABLE IF NOT EXISTS snapshots (run TEXT NOT NULL, tbl TEXT NOT NULL, pk TEXT NOT NULL, data TEXT NOT NULL,
                                      PRIMARY KEY (run, tbl, pk));
"""
BLOBS = "CREATE TABLE IF NOT EXISTS blobs (key TEXT PRIMARY KEY, data BLOB NOT NULL)"


class SqliteConnection(Connection):
    """One call's handle on an environment's connection. The connection outlives the call (kept
    for the next one, sqlite_connections.py), the handle does not: a state kept past its call
    (or left bound by a caller that exits its contexts out of order) fails here, as it did when
    each call closed its connection, instead of reading or writing inside another call."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn: sqlite3.Connection | None = conn

    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            raise sqlite3.ProgrammingError("this environment's call has ended: its state is no longer open")
        return self._conn

    def end(self) -> None:
        self._conn = None

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

    def create(self, env_id: str, meta: dict[str, str], rows: Iterator[Row], template_key: str,
               blobs: dict[str, bytes] | None = None) -> None:
        """A copy of the template's database (made once per template content), then the
        environment's own meta; written under another name and renamed, so a half-made
        environment never shows."""
        self.folder.mkdir(parents=True, exist_ok=True)
        template = self._template(template_key, rows, blobs or {})
        tmp = self._path(env_id).with_suffix(".creating")
        tmp.unlink(missing_ok=True)
        shutil.copyfile(template, tmp)
        with closing(sqlite3.connect(tmp, isolation_level=None)) as conn:
            conn.execute("BEGIN")
            conn.executemany("INSERT INTO meta VALUES (?, ?)", list(meta.items()))
            conn.execute("COMMIT")
        os.chmod(tmp, SHARED)
        tmp.rename(self._path(env_id))

    def _template(self, template_key: str, rows: Iterator[Row], blobs: dict[str, bytes]) -> Path:
        """The rows and their baseline as every environment of this template starts, kept in
        `.templates/` (AgentDiff keeps pre-built schemas the same way): a new environment is a
        file copy, not thousands of inserts. Two processes may build one at once; either copy wins."""
        name = hashlib.sha256(template_key.encode()).hexdigest()[:32]
        path = self.folder / TEMPLATES / f"{name}.sqlite"
        if path.exists():
            return path
        path.parent.mkdir(exist_ok=True)
        building = path.with_suffix(f".{os.getpid()}.{secrets.token_hex(4)}.building")
        with closing(sqlite3.connect(building, isolation_level=None)) as conn:
            conn.executescript(SCHEMA)
            conn.execute("BEGIN")
            conn.executemany("INSERT INTO rows (tbl, pk, data) VALUES (?, ?, ?)", rows)
            conn.execute("INSERT INTO baseline SELECT tbl, pk, data FROM rows ORDER BY rowid")
            if blobs:
                conn.execute(BLOBS)
                conn.executemany("INSERT INTO blobs (key, data) VALUES (?, ?)", list(blobs.items()))
            conn.execute("COMMIT")
        building.rename(path)
        return path

    @contextmanager
    def connect(self, env_id: str, write: bool) -> Iterator[Connection]:
        """A kept connection of this process (sqlite_connections.py), given back after the
        call unless the call failed in SQLite itself (then it is closed, not trusted again)."""
        path = self._path(env_id)
        try:
            conn, identity = KEPT.take(path)
        except FileNotFoundError:
            raise EnvironmentNotFound(f"no environment {env_id!r}") from None
        handle = SqliteConnection(conn)
        healthy = False
        try:
            if not write:
                yield handle
            else:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield handle
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
            healthy = True
        except BaseException as error:
            # The call's own error, rolled back, leaves a sound connection; SQLite's own may not.
            healthy = not isinstance(error, sqlite3.Error) and not conn.in_transaction
            if isinstance(error, sqlite3.OperationalError) and not path.exists():
                raise EnvironmentNotFound(f"no environment {env_id!r}") from None
            raise
        finally:
            handle.end()
            if healthy:
                KEPT.give_back(path, conn, identity)
            else:
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
        os.chmod(tmp, SHARED)
        tmp.rename(self._path(env_id))

    def remove(self, env_id: str) -> None:
        path = self._path(env_id)
        KEPT.forget(path)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
