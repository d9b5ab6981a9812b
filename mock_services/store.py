"""Environment state in SQLite: one database file per environment.

A file per environment makes isolation structural (a handler can only reach the file of
the environment in its URL), makes deletion a file removal, and lets the state survive
restarts. Each file holds the live rows and a `baseline` copy taken at creation; the
diff is a join of the two, in AgentDiff's shape.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from detour.credentials import new_env_id, validate_env_id
from detour.paths import StatePaths
from detour.policy import policy_file
from detour.services import Service
from mock_services.errors import EnvironmentExists, EnvironmentNotFound, InvalidTtl
from mock_services.request_budget import RequestBudget
from mock_services.tables import primary_key
from mock_services.templates import Template, load_template

SCHEMA = """
PRAGMA journal_mode = WAL;
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE rows (tbl TEXT NOT NULL, pk TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (tbl, pk));
CREATE TABLE baseline (tbl TEXT NOT NULL, pk TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (tbl, pk));
"""
# Rows as they were when a run started (AgentDiff's startRun): each run diffs against its own.
# Created on first use, so environments made before runs existed get it too.
SNAPSHOTS = """
CREATE TABLE IF NOT EXISTS snapshots (run TEXT NOT NULL, tbl TEXT NOT NULL, pk TEXT NOT NULL, data TEXT NOT NULL,
                                      PRIMARY KEY (run, tbl, pk));
"""

Row = dict[str, Any]


class EnvironmentInfo(BaseModel):
    env_id: str
    template: str
    service: Service
    acting_user: str
    created_at: float
    request_budget: RequestBudget | None = None
    expires_at: float | None = None  # after it, the environment is gone (AgentDiff's ttlSeconds)

    @property
    def expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= time.time()


class StateDiff(BaseModel):
    """AgentDiff's diff: every row carries its table in `__table__`."""

    inserts: list[Row]
    updates: list[Row]
    deletes: list[Row]


class EnvState:
    """The rows of one environment, behind a small table API the replicas share."""

    def __init__(self, conn: sqlite3.Connection, info: EnvironmentInfo) -> None:
        self.conn = conn
        self.info = info

    @property
    def service(self) -> Service:
        return self.info.service

    def _pk(self, table: str, row: Row) -> str:
        return json.dumps([row[c] for c in primary_key(self.service, table)])

    def rows(self, table: str, **equals: Any) -> list[Row]:
        """Rows of `table` in insertion order, filtered by top-level field equality."""
        sql = "SELECT data FROM rows WHERE tbl = ?"
        args: list[Any] = [table]
        for field, value in equals.items():
            sql += f" AND json_extract(data, '$.{field}') IS ?"
            args.append(value)
        return [json.loads(d) for (d,) in self.conn.execute(sql + " ORDER BY rowid", args)]

    def rows_in(self, table: str, field: str, values: list[Any]) -> list[Row]:
        """Rows of `table` whose top-level `field` is one of `values` (one query for a whole page)."""
        if not values:
            return []
        marks = ", ".join("?" * len(values))
        sql = f"SELECT data FROM rows WHERE tbl = ? AND json_extract(data, '$.{field}') IN ({marks}) ORDER BY rowid"
        return [json.loads(d) for (d,) in self.conn.execute(sql, [table, *values])]

    def first(self, table: str, **equals: Any) -> Row | None:
        found = self.rows(table, **equals)
        return found[0] if found else None

    def insert(self, table: str, row: Row) -> Row:
        self.conn.execute("INSERT INTO rows (tbl, pk, data) VALUES (?, ?, ?)",
                          (table, self._pk(table, row), json.dumps(row)))
        return row

    def update(self, table: str, row: Row) -> Row:
        self.conn.execute("UPDATE rows SET data = ? WHERE tbl = ? AND pk = ?",
                          (json.dumps(row), table, self._pk(table, row)))
        return row

    def delete(self, table: str, row: Row) -> None:
        self.conn.execute("DELETE FROM rows WHERE tbl = ? AND pk = ?", (table, self._pk(table, row)))

    def tables(self) -> dict[str, list[Row]]:
        """The current rows by table, in insertion order: a template's shape."""
        tables: dict[str, list[Row]] = {}
        for table, data in self.conn.execute("SELECT tbl, data FROM rows ORDER BY rowid"):
            tables.setdefault(table, []).append(json.loads(data))
        return tables

    def snapshot(self, run: str) -> None:
        self.conn.execute(SNAPSHOTS)
        self.conn.execute("INSERT INTO snapshots SELECT ?, tbl, pk, data FROM rows ORDER BY rowid", (run,))

    def diff(self, since: str | None = None) -> StateDiff:
        """Changes since creation, or since run `since` started."""
        def tagged(tbl: str, data: str) -> Row:
            return {**json.loads(data), "__table__": tbl}

        if since is None:
            before, args = "WITH b AS (SELECT tbl, pk, data, rowid AS n FROM baseline) ", ()
        else:
            before, args = "WITH b AS (SELECT tbl, pk, data, rowid AS n FROM snapshots WHERE run = ?) ", (since,)
        inserts = self.conn.execute(
            before + "SELECT r.tbl, r.data FROM rows r LEFT JOIN b ON r.tbl = b.tbl AND r.pk = b.pk"
            " WHERE b.pk IS NULL ORDER BY r.rowid", args)
        deletes = self.conn.execute(
            before + "SELECT b.tbl, b.data FROM b LEFT JOIN rows r ON r.tbl = b.tbl AND r.pk = b.pk"
            " WHERE r.pk IS NULL ORDER BY b.n", args)
        updates = self.conn.execute(
            before + "SELECT r.tbl, b.data, r.data FROM rows r JOIN b ON r.tbl = b.tbl AND r.pk = b.pk"
            " WHERE r.data != b.data ORDER BY r.rowid", args)
        return StateDiff(
            inserts=[tagged(t, d) for t, d in inserts],
            updates=[{"__table__": t, "before": json.loads(b), "after": json.loads(a)}
                     for t, b, a in updates],
            deletes=[tagged(t, d) for t, d in deletes],
        )


class EnvironmentStore:
    def __init__(self, state: StatePaths) -> None:
        self.state = state
        self.folder = state.environments_dir

    def _path(self, env_id: str) -> Path:
        return self.folder / f"{validate_env_id(env_id)}.sqlite"

    def create(self, template_name: str, env_id: str | None = None, acting_user: str | None = None,
               template_dirs: tuple[Path, ...] = (), request_budget: RequestBudget | None = None,
               ttl_s: float | None = None) -> EnvironmentInfo:
        if ttl_s is not None and ttl_s <= 0:
            raise InvalidTtl(f"a time to live is a positive number of seconds, not {ttl_s}")
        template = load_template(self.state, template_name, template_dirs)
        env_id = validate_env_id(env_id) if env_id else new_env_id()
        path = self._path(env_id)
        if path.exists():
            raise EnvironmentExists(f"environment {env_id!r} exists already")
        created = time.time()
        info = EnvironmentInfo(env_id=env_id, template=template.name, service=template.service,
                               acting_user=acting_user or _default_user(template), created_at=created,
                               request_budget=request_budget, expires_at=created + ttl_s if ttl_s else None)
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".creating")
        tmp.unlink(missing_ok=True)
        conn = sqlite3.connect(tmp, isolation_level=None)
        try:
            conn.executescript(SCHEMA)
            conn.execute("BEGIN")
            conn.executemany("INSERT INTO meta VALUES (?, ?)",
                             [(k, json.dumps(v)) for k, v in info.model_dump().items()])
            state = EnvState(conn, info)
            for table, rows in template.tables.items():
                for row in rows:
                    state.insert(table, row)
            conn.execute("INSERT INTO baseline SELECT tbl, pk, data FROM rows ORDER BY rowid")
            conn.execute("COMMIT")
        finally:
            conn.close()
        tmp.rename(path)
        return info

    def get(self, env_id: str) -> EnvironmentInfo:
        with self.open(env_id) as state:
            return state.info

    def list(self) -> list[EnvironmentInfo]:
        if not self.folder.is_dir():
            return []
        infos = []
        for path in sorted(self.folder.glob("*.sqlite")):
            try:
                infos.append(self.get(path.stem))
            except EnvironmentNotFound:
                continue  # deleted while we listed
        return sorted(infos, key=lambda i: i.created_at)

    def delete(self, env_id: str) -> None:
        path = self._path(env_id)
        if not path.exists():
            raise EnvironmentNotFound(f"no environment {env_id!r}")
        self._remove(env_id)

    def _remove(self, env_id: str) -> None:
        """The database and the environment's own network policy; its audit records stay."""
        _remove_database(self._path(env_id))
        policy_file(self.state, env_id).unlink(missing_ok=True)

    def expire(self) -> list[str]:
        """Delete the environments whose time to live is over (a server sweeps now and then;
        any use of one finds it gone in any case)."""
        before = {path.stem for path in self.folder.glob("*.sqlite")} if self.folder.is_dir() else set()
        return sorted(before - {info.env_id for info in self.list()})

    def diff(self, env_id: str, since: str | None = None) -> StateDiff:
        with self.open(env_id) as state:
            return state.diff(since)

    def snapshot(self, env_id: str, run: str) -> None:
        """Keep the rows as they are now, for diff(env_id, since=run)."""
        with self.open(env_id, write=True) as state:
            state.snapshot(run)

    def set_request_budget(self, env_id: str, budget: RequestBudget | None) -> EnvironmentInfo:
        with self.open(env_id, write=True) as state:
            state.conn.execute("INSERT OR REPLACE INTO meta VALUES ('request_budget', ?)",
                               (json.dumps(budget.model_dump() if budget else None),))
            return state.info.model_copy(update={"request_budget": budget})

    @contextmanager
    def open(self, env_id: str, write: bool = False) -> Iterator[EnvState]:
        """One environment's state; with write=True, one serialised transaction."""
        path = self._path(env_id)
        if not path.exists():
            raise EnvironmentNotFound(f"no environment {env_id!r}")
        conn = sqlite3.connect(path, isolation_level=None, timeout=30)
        try:
            meta = dict(conn.execute("SELECT key, value FROM meta"))
            info = EnvironmentInfo(**{k: json.loads(v) for k, v in meta.items()})
            if info.expired:
                conn.close()
                self._remove(env_id)
                raise EnvironmentNotFound(f"environment {env_id!r} expired (its time to live is over)")
            if not write:
                yield EnvState(conn, info)
                return
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield EnvState(conn, info)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        except sqlite3.OperationalError as e:
            if not path.exists():
                raise EnvironmentNotFound(f"no environment {env_id!r}") from None
            raise e
        finally:
            conn.close()


def _remove_database(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def _default_user(template: Template) -> str:
    """The first user of the seed acts unless told otherwise (AgentDiff's agent user)."""
    users = template.tables.get("users") or [{}]
    return str(users[0].get("user_id") or users[0].get("id") or "")
