"""Where environments' rows live: one module per database, behind `Database` (base.py).

SQLite (the default) keeps a file per environment; Postgres (DETOUR_DATABASE_URL, or
`detour serve --database`) a schema per environment, cloned from a schema per template, so
that any number of replica servers on any machines share environments. Both hold the same
tables (meta, rows, baseline, snapshots) and answer the same SQL, but for the few fragments
a `Connection` spells in its own dialect.
"""

from __future__ import annotations

import os

from detour_core.paths import DATABASE_VARIABLE, StatePaths
from mock_services.databases.base import Connection, Database, DatabaseUnreachable, InvalidDatabase, Row

__all__ = ["Connection", "Database", "DatabaseUnreachable", "InvalidDatabase", "Row", "check_database",
           "database_for", "database_url"]


def database_url(state: StatePaths) -> str | None:
    """$DETOUR_DATABASE_URL, else what `detour serve --database` recorded for this home."""
    if os.environ.get(DATABASE_VARIABLE):
        return os.environ[DATABASE_VARIABLE]
    try:
        return state.database_file.read_text().strip() or None
    except OSError:
        return None


def postgres_url(url: str) -> str:
    if not url.startswith(("postgresql://", "postgres://")):
        raise InvalidDatabase(f"the database URL must be postgresql://... (or none, for SQLite), not {url!r}")
    return url


def check_database(url: str) -> None:
    """That detour can use `url`, before anything records it: a few seconds at most, and Ctrl-C
    ends the wait (KeyboardInterrupt); InvalidDatabase or DatabaseUnreachable, in one line, if not."""
    from mock_services.databases.postgres import prepare
    prepare(postgres_url(url))


def database_for(state: StatePaths) -> Database:
    url = database_url(state)
    if url is None:
        from mock_services.databases.sqlite import SqliteDatabase
        return SqliteDatabase(state.environments_dir)
    from mock_services.databases.postgres import PostgresDatabase
    try:
        return PostgresDatabase.shared(postgres_url(url))  # checked as check_database does, once a process
    except (InvalidDatabase, DatabaseUnreachable) as e:
        raise type(e)(f"{e}. {way_back(state)}") from None


def way_back(state: StatePaths) -> str:
    """What to do when the database a home uses is gone: where the choice was made, and how to undo it."""
    if os.environ.get(DATABASE_VARIABLE):
        return f"${DATABASE_VARIABLE} names it: start that database, or unset the variable"
    return (f"This home recorded it in {state.database_file}: start that database, or go back to this home's "
            "SQLite files with `detour serve --database sqlite` (or by removing that file)")
