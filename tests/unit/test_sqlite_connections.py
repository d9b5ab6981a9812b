"""SQLite connections kept between replica calls: reused while the file is the same, never
when the environment was deleted or made again, closed when idle, bounded in number."""

from __future__ import annotations

import os

import pytest

from detour_core.errors import EnvironmentNotFound
from detour_core.paths import DATABASE_VARIABLE, HOME_VARIABLE, StatePaths
from mock_services.databases import sqlite_connections
from mock_services.databases.sqlite_connections import KEPT
from mock_services.store import EnvironmentStore

NEW_MESSAGE = {"message_id": "9.000001", "channel_id": "C01ABCD1234", "message_text": "kept"}


@pytest.fixture
def store(tmp_path, monkeypatch) -> EnvironmentStore:
    """A SQLite home whatever the pass (the Postgres pass keeps its own pool, psycopg's)."""
    monkeypatch.delenv(DATABASE_VARIABLE, raising=False)
    monkeypatch.setenv(HOME_VARIABLE, str(tmp_path / "home"))
    return EnvironmentStore(StatePaths(tmp_path / "home").ensure())


def path_of(store: EnvironmentStore, env: str):
    return store.state.environments_dir / f"{env}.sqlite"


def test_a_second_call_uses_the_connection_the_first_kept(store):
    env = store.create("slack_default").env_id
    with store.open(env) as state:
        first = state.db.conn
    assert KEPT.count(path_of(store, env)) == 1
    with store.open(env, write=True) as state:
        assert state.db.conn is first
        state.insert("messages", NEW_MESSAGE)
    assert [row["message_text"] for row in store.diff(env).inserts] == ["kept"]


def test_a_deleted_environment_closes_its_connections_and_is_not_found(store):
    env = store.create("slack_default").env_id
    with store.open(env):
        pass
    store.delete(env)
    assert KEPT.count(path_of(store, env)) == 0
    with pytest.raises(EnvironmentNotFound):
        with store.open(env):
            pass


def test_an_environment_made_again_under_the_same_id_is_read_from_its_new_file(store):
    """As when another process deletes it and makes it again: this process's kept connection
    still holds the old file open, and must not be used."""
    env = store.create("slack_default", env_id="again").env_id
    with store.open(env, write=True) as state:
        state.insert("messages", NEW_MESSAGE)
    for suffix in ("", "-wal", "-shm"):  # as SqliteDatabase.remove does, behind this process's back
        os.unlink(f"{path_of(store, env)}{suffix}")
    store.create("slack_default", env_id="again")
    with store.open(env) as state:
        assert state.first("messages", message_id=NEW_MESSAGE["message_id"]) is None
    assert KEPT.count(path_of(store, env)) == 1  # the stale one closed, the new one kept


def test_a_failed_call_rolls_back_and_its_connection_still_serves(store):
    env = store.create("slack_default").env_id
    with pytest.raises(RuntimeError):
        with store.open(env, write=True) as state:
            state.insert("messages", NEW_MESSAGE)
            raise RuntimeError("the handler's own error")
    assert KEPT.count(path_of(store, env)) == 1
    assert store.diff(env).inserts == []
    with store.open(env, write=True) as state:
        state.insert("messages", NEW_MESSAGE)
    assert len(store.diff(env).inserts) == 1


def test_an_error_of_sqlite_itself_closes_the_connection(store):
    env = store.create("slack_default").env_id
    with pytest.raises(Exception):
        with store.open(env) as state:
            state.db.execute("SELECT * FROM no_such_table")
    assert KEPT.count(path_of(store, env)) == 0


def test_idle_connections_close_and_at_most_a_few_are_kept_per_file(store, monkeypatch):
    env = store.create("slack_default").env_id
    opened = [store.open(env) for _ in range(sqlite_connections.MOST_PER_FILE + 2)]
    for context in opened:
        context.__enter__()
    for context in opened:
        context.__exit__(None, None, None)
    assert KEPT.count(path_of(store, env)) == sqlite_connections.MOST_PER_FILE
    monkeypatch.setattr(sqlite_connections, "IDLE_SECONDS", 0.0)
    other = store.create("slack_default").env_id
    with store.open(other):  # any call sweeps what has been idle too long
        pass
    assert KEPT.count(path_of(store, env)) == 0
