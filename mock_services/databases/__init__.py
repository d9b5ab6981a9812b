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
from mock_services.databases.base import Connection, Database, InvalidDatabase, Row

__all__ = ["Connection", "Database", "InvalidDatabase", "Row", "database_for", "database_url"]


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
