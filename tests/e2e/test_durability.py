"""kill -9 of the replica server in the middle of writes: every change a client saw
acknowledged is there afterwards, and the environment's database is intact (SQLite's WAL,
Postgres's transactions)."""

import os
import signal
import sqlite3
import threading
import time

import pytest
import requests

from detour_core.paths import DATABASE_VARIABLE, StatePaths
from detour.stack import Stack
from mock_services.store import EnvironmentStore
from tests.postgres import fresh_database, needs_postgres, postgres_server
from tests.waiting import until

WRITERS = 4


@pytest.mark.parametrize("database", ["sqlite", "postgres"])
def test_a_killed_replica_server_loses_no_acknowledged_change(tmp_path, database, request):
    if database == "postgres":
        request.getfixturevalue("postgres_url")  # the stack's replica server inherits DETOUR_DATABASE_URL
    state = StatePaths(tmp_path / "home").ensure()
    store = EnvironmentStore(state)
    env = store.create("slack_default").env_id
    acknowledged: list[str] = []
    stop = threading.Event()
    stack = Stack(state, parts=("replicas",))

    def write(worker: int) -> None:
        url = f"{stack.info.replica_url}/api/env/{env}/services/slack/chat.postMessage"
        with requests.Session() as session:
            for n in range(10_000):
                text = f"w{worker}-{n}"
                try:
                    answer = session.post(url, headers={"Authorization": "Bearer xoxb-1"},
                                          json={"channel": "general", "text": text}, timeout=5)
                except requests.RequestException:
                    return  # the server is gone: this write may or may not have landed
                if answer.json().get("ok"):
                    acknowledged.append(text)
                if stop.is_set():
                    return

    with stack:
        writers = [threading.Thread(target=write, args=(w,)) for w in range(WRITERS)]
        for thread in writers:
            thread.start()
        deadline = time.monotonic() + 30
        while len(acknowledged) < 200 and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(stack.processes["replicas"].pid, signal.SIGKILL)  # mid-write: four clients are posting
        stack.processes["replicas"].wait()
        stop.set()
        for thread in writers:
            thread.join(10)
    assert len(acknowledged) >= 200
    if database == "sqlite":
        with sqlite3.connect(state.environments_dir / f"{env}.sqlite") as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    stored = {row["message_text"] for row in store.diff(env).inserts}
    assert set(acknowledged) <= stored
    assert len(stored) - len(acknowledged) <= WRITERS  # at most the write each client had in flight


@needs_postgres
def test_a_restarted_postgres_keeps_every_call_whole_and_the_replicas_answer_again(tmp_path, monkeypatch):
    """Postgres ends as in a crash (immediate shutdown) while four clients create channels (a
    channel row and its creator's membership row, one transaction) and comes back: every channel a
    client saw created is stored, none without its membership (all of a call's writes or none), a
    call under way then fails in one clear answer, and the replica server answers again on its own."""
    servers: list = []
    with postgres_server(servers) as server_url, fresh_database(server_url) as url:
        monkeypatch.setenv(DATABASE_VARIABLE, url)  # the replica server inherits it
        state = StatePaths(tmp_path / "home").ensure()
        store = EnvironmentStore(state)
        env = store.create("slack_default").env_id
        acknowledged: list[str] = []
        refused: list[str] = []
        unclear: list[str] = []  # answers that were not one clear line
        stop = threading.Event()

        def create(worker: int) -> None:
            url = f"{stack.info.replica_url}/api/env/{env}/services/slack/conversations.create"
            with requests.Session() as session:
                for n in range(10_000):
                    name = f"w{worker}-{n}"
                    try:
                        answer = session.post(url, headers={"Authorization": "Bearer xoxb-1"}, json={"name": name},
                                              timeout=60)
                    except requests.RequestException as e:  # the replica server must stay up throughout
                        unclear.append(repr(e))
                        return
                    (acknowledged if answer.ok and answer.json().get("ok") else refused).append(name)
                    if not answer.ok and (answer.status_code not in (500, 503) or len(answer.text.splitlines()) != 1):
                        unclear.append(f"{answer.status_code} {answer.text}")
                    if stop.is_set():
                        return

        stack = Stack(state, parts=("replicas",))
        with stack:
            writers = [threading.Thread(target=create, args=(w,)) for w in range(WRITERS)]
            for thread in writers:
                thread.start()
            until(lambda: len(acknowledged) >= 40, writers[0], "no channel was created")
            servers[0].restart()
            before = len(acknowledged)
            until(lambda: len(acknowledged) >= before + 40, writers[0], "the replicas did not answer again")
            stop.set()
            for thread in writers:
                thread.join(60)
        rows = store.diff(env).inserts
        channels = {r["channel_name"] for r in rows if r["__table__"] == "channels"}
        ids = {r["channel_id"] for r in rows if r["__table__"] == "channels"}
        members = {r["channel_id"] for r in rows if r["__table__"] == "channel_members"}
        assert unclear == []
        assert set(acknowledged) <= channels <= set(acknowledged) | set(refused)
        assert ids == members  # no channel without its membership, no membership without its channel
