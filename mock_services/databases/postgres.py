"""Postgres: a schema per environment, cloned from a schema per template (as AgentDiff does).

Every replica server on every machine that points at one database shares its environments.
A template's rows are loaded once into `tpl_<hash of its content>`; an environment is then
a few statements that copy them. Writers of one environment take its advisory lock, so they
follow one another as SQLite's BEGIN IMMEDIATE makes them.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, ClassVar
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import sql
from psycopg_pool import ConnectionPool

from mock_services.databases.base import Connection, Database, DatabaseUnreachable, Row
from detour_core.errors import EnvironmentNotFound

REGISTRY = "CREATE TABLE IF NOT EXISTS detour_environments (env_id TEXT PRIMARY KEY, schema TEXT NOT NULL)"
CREATE = """
CREATE TABLE {s}.meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE {s}.rows (rowid BIGSERIAL, tbl TEXT NOT NULL, pk TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (tbl, pk));
CREATE TABLE {s}.baseline (rowid BIGINT NOT NULL, tbl TEXT NOT NULL, pk TEXT NOT NULL, data TEXT NOT NULL,
                           PRIMARY KEY (tbl, pk));
CREATE TABLE {s}.snapshots (rowid BIGSERIAL, run TEXT NOT NULL, tbl TEXT NOT NULL, pk TEXT NOT NULL,
                            data TEXT NOT NULL, PRIMARY KEY (run, tbl, pk));
"""
# The rows of {t} (a template's schema, or the environment a fork copies) as the new rows and baseline.
FILL = """
INSERT INTO {s}.rows (rowid, tbl, pk, data) SELECT rowid, tbl, pk, data FROM {t}.rows;
INSERT INTO {s}.baseline SELECT rowid, tbl, pk, data FROM {t}.rows;
SELECT setval(pg_get_serial_sequence({q}, 'rowid'), COALESCE((SELECT max(rowid) FROM {t}.rows), 0) + 1, false)
"""
TABLES = CREATE + FILL
FORK = CREATE + "INSERT INTO {s}.meta SELECT key, value FROM {t}.meta;" + FILL
BLOBS = "CREATE TABLE IF NOT EXISTS blobs (key TEXT PRIMARY KEY, data BYTEA NOT NULL)"  # in the search path's schema
POOL_SIZE = 8
ANSWER_WITHIN_S = 5  # a database slower than this to let us in is taken as not answering


def prepare(url: str) -> None:
    """Connect once and make the registry of environments: within ANSWER_WITHIN_S, and Ctrl-C
    ends the wait (a pool would wait 30 s, deaf to it, then raise its own traceback)."""
    try:
        with psycopg.connect(url, connect_timeout=ANSWER_WITHIN_S, autocommit=True) as conn:
            conn.execute(REGISTRY)
    except psycopg.Error as e:
        reason = "; ".join(line.strip() for line in str(e).splitlines() if line.strip())
        if isinstance(e, psycopg.errors.ConnectionTimeout):
            reason = f"it did not answer within {ANSWER_WITHIN_S} s"
        raise DatabaseUnreachable(f"cannot use the database {shown(url)}: {reason}") from None


def shown(url: str) -> str:
    """A URL fit for a message: its password, if any, hidden."""
    parts = urlsplit(url)
    if not parts.password:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@", 1)))


def _schema(prefix: str, key: str) -> str:
    """Any environment id or template fits: a hash, within Postgres's 63-byte names."""
    return f"{prefix}_{hashlib.sha256(key.encode()).hexdigest()[:32]}"


def _script(conn, script: str, names: dict) -> None:
    """Each statement of `script`, its {names} filled in as identifiers and literals."""
    for statement in script.strip().replace("\n", " ").split("; "):
        conn.execute(sql.SQL(statement).format(**names))


class PostgresConnection(Connection):
    def __init__(self, cursor) -> None:
        self.cursor = cursor

    def execute(self, query: str, args: tuple | list = ()) -> list[tuple]:
        self.cursor.execute(query.replace("?", "%s"), args)
        return self.cursor.fetchall() if self.cursor.description else []

    def prepare_blobs(self) -> None:
        self.cursor.execute(BLOBS)

    def field_is(self, field: str) -> str:
        return f"COALESCE(data::jsonb -> '{field}', 'null'::jsonb) = ?::jsonb"

    def field_value(self, value: Any) -> Any:
        return json.dumps(value)

    def field_in(self, field: str, count: int) -> str:
        return f"COALESCE(data::jsonb -> '{field}', 'null'::jsonb) IN ({', '.join(['?::jsonb'] * count)})"


class PostgresDatabase(Database):
    name = "postgres"
    pools: ClassVar[dict[str, PostgresDatabase]] = {}
    lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, url: str) -> None:
        prepare(url)
        # A connection is checked as it leaves the pool (one empty query): after the server
        # restarted, a kept one is dead, and would fail the first call of each pooled connection.
        self.pool = ConnectionPool(url, min_size=1, max_size=POOL_SIZE, open=True,
                                   check=ConnectionPool.check_connection)

    @classmethod
    def shared(cls, url: str) -> PostgresDatabase:
        """One pool per URL and process: connecting costs more than a request."""
        with cls.lock:
            if url not in cls.pools:
                cls.pools[url] = cls(url)
            return cls.pools[url]

    @classmethod
    def forget(cls, url: str) -> None:
        """Close the pool for `url` (its database is about to go)."""
        with cls.lock:
            database = cls.pools.pop(url, None)
        if database:
            database.pool.close()

    def exists(self, env_id: str) -> bool:
        with self.pool.connection() as conn:
            return conn.execute("SELECT 1 FROM detour_environments WHERE env_id = %s", (env_id,)).fetchone() is not None

    def ids(self) -> list[str]:
        with self.pool.connection() as conn:
            return [r[0] for r in conn.execute("SELECT env_id FROM detour_environments ORDER BY env_id")]

    def create(self, env_id: str, meta: dict[str, str], rows: Iterator[Row], template_key: str,
               blobs: dict[str, bytes] | None = None) -> None:
        schema, template = _schema("env", env_id), _schema("tpl", template_key)
        with self.pool.connection() as conn:
            self._template(conn, template, rows)
            names = {"s": sql.Identifier(schema), "t": sql.Identifier(template), "q": sql.Literal(f'"{schema}".rows')}
            conn.execute(sql.SQL("CREATE SCHEMA {s}").format(**names))
            _script(conn, TABLES, names)
            with conn.cursor() as cursor:
                cursor.executemany(sql.SQL("INSERT INTO {s}.meta VALUES (%s, %s)").format(**names), list(meta.items()))
                if blobs:
                    cursor.execute(sql.SQL("CREATE TABLE {s}.blobs (key TEXT PRIMARY KEY, data BYTEA NOT NULL)")
                                   .format(**names))
                    cursor.executemany(sql.SQL("INSERT INTO {s}.blobs VALUES (%s, %s)").format(**names),
                                       list(blobs.items()))
            conn.execute("INSERT INTO detour_environments VALUES (%s, %s)", (env_id, schema))

    def _template(self, conn, template: str, rows: Iterator[Row]) -> None:
        """The template's rows, once for all environments made from it."""
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (template,))
        if conn.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", (template,)).fetchone():
            return
        name = sql.Identifier(template)
        conn.execute(sql.SQL("CREATE SCHEMA {t}").format(t=name))
        conn.execute(sql.SQL("CREATE TABLE {t}.rows (rowid BIGINT NOT NULL, tbl TEXT NOT NULL, pk TEXT NOT NULL, "
                             "data TEXT NOT NULL)").format(t=name))
        with conn.cursor() as cursor:
            cursor.executemany(sql.SQL("INSERT INTO {t}.rows VALUES (%s, %s, %s, %s)").format(t=name),
                               [(n, *row) for n, row in enumerate(rows, start=1)])

    @contextmanager
    def connect(self, env_id: str, write: bool) -> Iterator[Connection]:
        """The pool's connection commits when the block ends, and rolls back if it raises."""
        with self.pool.connection() as conn, conn.cursor() as cursor:
            found = cursor.execute("SELECT schema FROM detour_environments WHERE env_id = %s", (env_id,)).fetchone()
            if found is None:
                raise EnvironmentNotFound(f"no environment {env_id!r}")
            if write:
                cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (env_id,))
            cursor.execute(sql.SQL("SET LOCAL search_path TO {}").format(sql.Identifier(found[0])))
            yield PostgresConnection(cursor)

    def fork(self, source: str, env_id: str, meta: dict[str, str]) -> None:
        """Under the source's write lock, so the copy is of one moment."""
        schema = _schema("env", env_id)
        with self.pool.connection() as conn:
            found = conn.execute("SELECT schema FROM detour_environments WHERE env_id = %s", (source,)).fetchone()
            if found is None:
                raise EnvironmentNotFound(f"no environment {source!r}")
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (source,))
            names = {"s": sql.Identifier(schema), "t": sql.Identifier(found[0]), "q": sql.Literal(f'"{schema}".rows')}
            conn.execute(sql.SQL("CREATE SCHEMA {s}").format(**names))
            _script(conn, FORK, names)
            if conn.execute("SELECT 1 FROM pg_tables WHERE schemaname = %s AND tablename = 'blobs'",
                            (found[0],)).fetchone():
                conn.execute(sql.SQL("CREATE TABLE {s}.blobs AS SELECT * FROM {t}.blobs").format(**names))
                conn.execute(sql.SQL("ALTER TABLE {s}.blobs ADD PRIMARY KEY (key)").format(**names))
            with conn.cursor() as cursor:
                cursor.executemany(sql.SQL("INSERT INTO {s}.meta VALUES (%s, %s) ON CONFLICT (key) DO UPDATE "
                                           "SET value = excluded.value").format(**names), list(meta.items()))
            conn.execute("INSERT INTO detour_environments VALUES (%s, %s)", (env_id, schema))

    def remove(self, env_id: str) -> None:
        with self.pool.connection() as conn:
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(_schema("env", env_id))))
            conn.execute("DELETE FROM detour_environments WHERE env_id = %s", (env_id,))
