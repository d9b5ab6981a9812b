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

from detour_core.paths import StatePaths
from detour.stack import Stack
from mock_services.store import EnvironmentStore

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
