"""The ports a stack picks for its children: free, and outside the range the kernel hands to
outgoing connections (which could take a port between the pick and the child's bind)."""

import socket

from detour.stack import _ephemeral_floor, free_port


def test_free_ports_are_bindable_and_below_the_ephemeral_range():
    ports = {free_port("127.0.0.1") for _ in range(50)}
    assert all(10_000 <= p < _ephemeral_floor() for p in ports)
    for port in ports:
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))


def released() -> int:
    """A port the kernel found free and this test let go: the one a scripted pick ends on (a
    fixed port may be another test's listener at that moment, as a CI run saw)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_taken_port_is_never_picked(monkeypatch):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        busy, free = taken.getsockname()[1], released()
        picks = iter([busy, busy, free])
        monkeypatch.setattr("detour.stack.random.randrange", lambda *_: next(picks))
        monkeypatch.setattr("detour.stack._ephemeral_floor", lambda: 65000)
        assert free_port("127.0.0.1") == free


def test_a_port_promised_to_another_child_is_never_picked_though_nothing_binds_it_yet(monkeypatch):
    promised, free = {20_000}, released()
    picks = iter([20_000, 20_000, free])
    monkeypatch.setattr("detour.stack.random.randrange", lambda *_: next(picks))
    monkeypatch.setattr("detour.stack._ephemeral_floor", lambda: 65000)
    assert free_port("127.0.0.1", promised) == free and promised == {20_000, free}
