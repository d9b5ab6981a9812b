"""An environment's clock: the packs read time and draw ids only through mock_services.clock,
a frozen clock and a seed make two environments' rows alike byte for byte, and relative
queries follow the environment's time."""

import ast
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mock_services import clock
from mock_services.clock import Clock
from mock_services.store import EnvironmentStore
from tests.unit.test_store import store  # noqa: F401 - the store on both databases

PACKS = Path(__file__).parents[2] / "mock_services"
WALL_CLOCK = {("time", "time"), ("time", "time_ns"), ("datetime", "now"), ("datetime", "utcnow"), ("date", "today"),
              ("uuid", "uuid1"), ("uuid", "uuid4"), ("random", "random"), ("random", "randint"),
              ("random", "choice"), ("secrets", "choice"), ("secrets", "randbelow"), ("secrets", "token_hex")}
# Where the wall clock or the system's randomness is right: credentials a caller presents (they
# must stay unguessable), request budgets (a rate is real time), and the store's own bookkeeping.
ALLOWED = {"clock.py", "store.py", "issued_tokens.py", "rest/router.py:within_budget", "slack/router.py:within_budget",
           "databases/", "slack/socket_mode.py:connections_open",  # a Socket Mode ticket is a credential
           "mcp/endpoint.py:session"}  # so is an MCP session id (signed; a seed would make it guessable)


def wall_clock_reads() -> list[str]:
    found = []
    for path in sorted(PACKS.rglob("*.py")):
        name = str(path.relative_to(PACKS))
        if any(name.startswith(a) or name == a for a in ALLOWED):
            continue
        tree = ast.parse(path.read_text())
        for function in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)] or [tree]:
            if f"{name}:{getattr(function, 'name', '')}" in ALLOWED:
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and isinstance(node.func.value, ast.Name) and (node.func.value.id, node.func.attr) in WALL_CLOCK:
                    found.append(f"{name}:{node.lineno} {node.func.value.id}.{node.func.attr}()")
    return sorted(set(found))


def test_no_pack_reads_the_wall_clock_or_draws_by_itself():
    assert wall_clock_reads() == []


def write_a_little(store: EnvironmentStore, env: str) -> None:  # noqa: F811
    """What a replica's call does: rows stamped with the time and ids drawn."""
    from mock_services.slack.ids import new_id, new_ts
    with store.open(env, write=True) as state:
        state.insert("messages", {"message_id": new_ts(state), "channel_id": new_id("C"), "message_text": "hi",
                                  "created_at": clock.utcnow().isoformat()})


def test_a_frozen_clock_and_a_seed_give_two_environments_the_same_rows(store):  # noqa: F811
    frozen = Clock().set(datetime(2026, 3, 1, 9, 30, tzinfo=UTC).timestamp())
    first, second = (store.create("slack_default", clock=frozen, seed="s1").env_id for _ in range(2))
    other = store.create("slack_default", clock=frozen, seed="s2").env_id
    for env in (first, second, other):
        write_a_little(store, env)
    rows = [store.diff(env).inserts for env in (first, second, other)]
    assert rows[0] == rows[1] and rows[0] != rows[2]
    assert rows[0][0]["created_at"] == "2026-03-01T09:30:00+00:00"


def test_the_clock_is_set_frozen_run_and_stepped(store):  # noqa: F811
    env = store.create("slack_default").env_id
    with store.open(env):
        assert abs(clock.now() - time.time()) < 5  # the wall clock's by default
    at = datetime(2030, 1, 1, tzinfo=UTC).timestamp()
    store.set_clock(env, Clock().set(at))
    with store.open(env):
        assert clock.now() == at
    store.set_clock(env, Clock().set(at, mode="running"))
    time.sleep(0.05)
    with store.open(env):
        assert at < clock.now() < at + 5
    assert abs(clock.now() - time.time()) < 5  # outside an environment: the wall clock


def test_a_bad_clock_is_refused():
    with pytest.raises(ValueError):
        Clock(mode="sideways")
