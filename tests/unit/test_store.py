import json

import pytest

from detour_core.credentials import InvalidEnvId
from detour_core.errors import EnvironmentExists, EnvironmentNotFound, InvalidTemplate, UnknownTemplate
from mock_services.store import EnvironmentStore
from mock_services.templates import parse_template


@pytest.fixture(params=["sqlite", "postgres"])
def store(state, request) -> EnvironmentStore:
    """Every store test on both databases (Postgres: a server of the tests' own)."""
    if request.param == "postgres":
        request.getfixturevalue("postgres_url")
    return EnvironmentStore(state)


def test_new_environment_has_the_template_rows_and_an_empty_diff(store):
    info = store.create("slack_default")
    assert (info.service, info.acting_user) == ("slack", "U01AGENBOT9")
    with store.open(info.env_id) as state:
        assert len(state.rows("users")) == 3
        assert [c["channel_name"] for c in state.rows("channels")] == ["general", "random"]
    assert store.diff(info.env_id).model_dump() == {"inserts": [], "updates": [], "deletes": []}


def test_diff_has_agentdiff_shape(store):
    env = store.create("slack_default").env_id
    with store.open(env, write=True) as state:
        msg = state.first("messages", channel_id="C01ABCD1234")
        state.update("messages", {**msg, "message_text": "edited"})
        state.insert("messages", {"message_id": "1.000001", "channel_id": "C02EFGH5678", "message_text": "new"})
        state.delete("channel_members", state.first("channel_members", user_id="U02JOHNDOE1"))
    diff = store.diff(env)
    assert diff.inserts == [{"message_id": "1.000001", "channel_id": "C02EFGH5678", "message_text": "new",
                             "__table__": "messages"}]
    [update] = diff.updates
    assert update["__table__"] == "messages"
    assert (update["before"]["message_text"], update["after"]["message_text"]) == (msg["message_text"], "edited")
    assert diff.deletes == [{"channel_id": "C01ABCD1234", "user_id": "U02JOHNDOE1", "__table__": "channel_members"}]


def test_a_run_diffs_against_its_own_snapshot_and_creation_stays_the_baseline(store):
    env = store.create("slack_default").env_id
    new = {"message_id": "1.000001", "channel_id": "C02EFGH5678", "message_text": "before the run"}
    with store.open(env, write=True) as state:
        state.insert("messages", new)
    store.snapshot(env, "run1")
    with store.open(env, write=True) as state:
        state.update("messages", {**new, "message_text": "during the run"})
    since_run = store.diff(env, since="run1")
    assert (since_run.inserts, len(since_run.updates), since_run.deletes) == ([], 1, [])
    assert [row["message_text"] for row in store.diff(env).inserts] == ["during the run"]


def test_environments_never_see_each_other(store):
    a, b = store.create("slack_default").env_id, store.create("slack_default").env_id
    with store.open(a, write=True) as state:
        state.insert("messages", {"message_id": "2.0", "channel_id": "C01ABCD1234"})
    assert len(store.diff(a).inserts) == 1
    assert store.diff(b).inserts == []


def test_failed_write_rolls_back(store):
    env = store.create("slack_default").env_id
    with pytest.raises(RuntimeError), store.open(env, write=True) as state:
        state.insert("messages", {"message_id": "3.0", "channel_id": "C01ABCD1234"})
        raise RuntimeError("handler failed")
    assert store.diff(env).inserts == []


def test_list_and_delete(store):
    a = store.create("slack_default", env_id="first").env_id
    b = store.create("linear_default", env_id="second").env_id
    assert [i.env_id for i in store.list()] == [a, b]
    store.delete(a)
    assert [i.env_id for i in store.list()] == [b]
    with pytest.raises(EnvironmentNotFound):
        store.diff(a)


def test_state_survives_a_new_store_object(state):
    env = EnvironmentStore(state).create("slack_default").env_id
    with EnvironmentStore(state).open(env, write=True) as s:
        s.insert("messages", {"message_id": "4.0", "channel_id": "C01ABCD1234"})
    assert len(EnvironmentStore(state).diff(env).inserts) == 1


@pytest.mark.parametrize("call, error", [
    (lambda s: s.create("no_such_template"), UnknownTemplate),
    (lambda s: s.create("../etc/passwd"), UnknownTemplate),
    (lambda s: s.create("slack_default", env_id="bad id!"), InvalidEnvId),
    (lambda s: s.diff("../../x"), InvalidEnvId),
    (lambda s: s.delete("missing"), EnvironmentNotFound),
])
def test_bad_input_gets_a_clear_error(store, call, error):
    with pytest.raises(error) as e:
        call(store)
    assert str(e.value)


def test_existing_environment_is_not_overwritten(store):
    store.create("slack_default", env_id="keep")
    with store.open("keep", write=True) as state:
        state.insert("messages", {"message_id": "5.0", "channel_id": "C01ABCD1234"})
    with pytest.raises(EnvironmentExists):
        store.create("linear_default", env_id="keep")
    assert len(store.diff("keep").inserts) == 1


@pytest.mark.parametrize("text, message", [
    ("{", "not valid JSON"),
    ("[]", "object of table name"),
    ('{"widgets": []}', "cannot tell its service"),
    ('{"messages": [{"channel_id": "C1"}]}', "needs message_id"),
])
def test_malformed_templates_are_rejected(text, message):
    with pytest.raises(InvalidTemplate, match=message):
        parse_template("t", text)


@pytest.mark.parametrize("name", ["slack_default", "slack_bench_default", "slack_bench_v2",
                                  "linear_default", "linear_expanded"])
def test_every_agentdiff_seed_is_a_template_row_for_row(store, name):
    """Row for row, with the pack's defaults for the fields a seed leaves out (and only those)."""
    from detour_core.registry import pack
    from mock_services.templates import builtin_template_file
    seed = json.loads(builtin_template_file(name).read_text())
    env = store.create(name).env_id
    defaults = pack(store.get(env).service).row_defaults
    with store.open(env) as state:
        for table, rows in seed.items():
            assert state.rows(table) == [{**defaults.get(table, {}), **row} for row in rows]
    assert store.diff(env).inserts == []


def test_an_environment_can_become_a_template(state, store):
    from mock_services.templates import save_template
    env = store.create("slack_default").env_id
    with store.open(env, write=True) as s:
        s.insert("messages", {"message_id": "7.0", "channel_id": "C01ABCD1234", "message_text": "kept"})
        s.put_blob("a" * 40, b"\x00bytes it keeps\xff")
    with store.open(env) as s:
        save_template(state, "slack_with_kept", s.template_body())
    copy = store.create("slack_with_kept").env_id
    with store.open(copy) as s:
        assert [m["message_text"] for m in s.rows("messages")][-1] == "kept"
        assert s.blobs() == {"a" * 40: b"\x00bytes it keeps\xff"}
    assert store.diff(copy).inserts == []
    with store.open(env) as s:
        for taken in ("slack_with_kept", "slack_default"):
            with pytest.raises(InvalidTemplate, match="exists already"):
                save_template(state, taken, s.tables())
        with pytest.raises(InvalidTemplate, match="invalid template name"):
            save_template(state, "../escape", s.tables())
