"""Forks: copies of an environment as it stands now, each its own environment from then on
(rows, contents, policy, secrets, issued tokens), on SQLite and on Postgres."""

import pytest

from detour_core.errors import EnvironmentNotFound, InvalidFork
from detour_core.policy import Policy, load_policy, policy_file, save_policy
from detour_core.secrets import SecretStore
from mock_services.store import EnvironmentStore
from tests.unit.test_store import store  # noqa: F401 - the store on both databases


def busy(store: EnvironmentStore) -> str:  # noqa: F811
    """An environment some agent has been at: a new message, an edit, a file's contents."""
    env = store.create("slack_default").env_id
    with store.open(env, write=True) as state:
        state.insert("messages", {"message_id": "9.000001", "channel_id": "C01ABCD1234", "message_text": "before"})
        general = state.first("channels", channel_name="general")
        state.update("channels", {**general, "topic_text": "forked here"})
        state.put_blob("sha-1", b"contents")
    return env


def test_forks_start_as_the_parent_stands_and_then_diverge_on_their_own(store):  # noqa: F811
    parent = busy(store)
    save_policy(policy_file(store.state, parent), Policy(allow=["api.partner.test"]))
    SecretStore(store.state.secrets_dir).set(parent, "KEY", "sk-" + "v" * 30, ["api.partner.test"])
    first, second = store.fork(parent, 2)
    assert first.env_id != second.env_id and first.forked_from == second.forked_from == parent
    for fork in (first, second):
        with store.open(fork.env_id) as state:
            assert state.first("messages", message_id="9.000001")["message_text"] == "before"
            assert state.blob("sha-1") == b"contents"
        assert store.diff(fork.env_id).model_dump() == {"inserts": [], "updates": [], "deletes": []}  # from the fork
        assert load_policy(policy_file(store.state, fork.env_id)).allow == ["api.partner.test"]
        assert SecretStore(store.state.secrets_dir).all(fork.env_id)["KEY"].value == "sk-" + "v" * 30
    with store.open(first.env_id, write=True) as state:
        state.insert("messages", {"message_id": "9.000002", "channel_id": "C01ABCD1234", "message_text": "first only"})
    with store.open(parent, write=True) as state:
        state.delete("messages", state.first("messages", message_id="9.000001"))
    assert [r["message_text"] for r in store.diff(first.env_id).inserts] == ["first only"]
    assert store.diff(second.env_id).model_dump() == {"inserts": [], "updates": [], "deletes": []}
    assert [r["message_text"] for r in store.diff(parent).inserts] == []  # its own deletion undid its insert
    tokens = [store.credentials(e).tokens for e in (parent, first.env_id, second.env_id)]
    assert len({tuple(t.values()) for t in tokens}) == 3  # each issues tokens of its own


def test_a_fork_of_nothing_or_of_no_copies_is_refused_and_changes_nothing(store):  # noqa: F811
    parent = busy(store)
    before = [i.env_id for i in store.list()]
    with pytest.raises(EnvironmentNotFound):
        store.fork("env-nope", 1)
    with pytest.raises(InvalidFork):
        store.fork(parent, 0)
    assert [i.env_id for i in store.list()] == before
