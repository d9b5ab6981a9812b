"""SQLite connections kept between replica calls: reused while the file is the same, never
when the environment was deleted or made again, closed when idle, bounded in number."""

from __future__ import annotations

import os
import sqlite3
from contextlib import ExitStack

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


def test_a_state_kept_past_its_call_cannot_reach_the_connection_the_next_call_uses(store):
    """The connection is the next call's now: the old state fails loudly instead of writing
    inside that call's transaction (closing each call's connection used to ensure it). A make
    test run failed this way: a test left a state bound, and error bodies drew ids through it."""
    env = store.create("slack_default").env_id
    with store.open(env) as state:
        kept, used = state, state.db.conn
    with store.open(env, write=True) as current:
        assert current.db.conn is used
        with pytest.raises(sqlite3.ProgrammingError, match="call has ended"):
            kept.set_meta("clock_draws", 99)
        current.insert("messages", NEW_MESSAGE)
    with store.open(env) as state:
        assert state.meta("clock_draws") is None
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
    with ExitStack() as calls:  # left as contexts must be: the last opened first
        for _ in range(sqlite_connections.MOST_PER_FILE + 2):
            calls.enter_context(store.open(env))
    assert KEPT.count(path_of(store, env)) == sqlite_connections.MOST_PER_FILE
    monkeypatch.setattr(sqlite_connections, "IDLE_SECONDS", 0.0)
    other = store.create("slack_default").env_id
    with store.open(other):  # any call sweeps what has been idle too long
        pass
    assert KEPT.count(path_of(store, env)) == 0
