"""A background stack's start (detour/background.py): a proxy URL users keep names the wanted
port, so a start that failed is tried again there; only a port another program took moves it.
`_launch` (a whole `detour serve`) is replaced by a script of outcomes; the ports are real."""

import socket

import pytest

from detour import background
from detour.stack import PROXY_PORT_VARIABLE, REPLICA_PORT_VARIABLE, StackError, free_port
from detour_core.paths import StatePaths


@pytest.fixture
def wanted(monkeypatch) -> tuple[int, int]:
    ports: set[int] = set()
    proxy, replica = free_port("127.0.0.1", ports), free_port("127.0.0.1", ports)
    monkeypatch.setenv(PROXY_PORT_VARIABLE, str(proxy))
    monkeypatch.setenv(REPLICA_PORT_VARIABLE, str(replica))
    return proxy, replica


def scripted(monkeypatch, first_failure) -> list[tuple[int, int]]:
    """The ports each launch was given; the first fails by calling `first_failure`."""
    tries: list[tuple[int, int]] = []

    def launch(state: StatePaths, ports: tuple[int, int]) -> str:
        tries.append(ports)
        if len(tries) == 1:
            first_failure()
            raise StackError("proxy exited with 1")
        return "up"
    monkeypatch.setattr(background, "_launch", launch)
    return tries


def test_a_start_that_failed_is_tried_again_on_the_same_ports_and_the_log_says_why(tmp_path, monkeypatch, wanted):
    state = StatePaths(tmp_path / "home").ensure()
    tries = scripted(monkeypatch, lambda: None)
    assert background._start(state) == "up"
    assert tries == [wanted, wanted]
    assert "proxy exited with 1" in background.log_file(state).read_text()


def test_only_a_port_another_program_took_meanwhile_gives_way(tmp_path, monkeypatch, wanted):
    state = StatePaths(tmp_path / "home").ensure()
    with socket.socket() as other:
        tries = scripted(monkeypatch, lambda: (other.bind(("127.0.0.1", wanted[0])), other.listen()))
        assert background._start(state) == "up"
    assert tries == [wanted, (0, wanted[1])]


def test_a_second_failure_is_the_one_reported_and_the_first_is_logged(tmp_path, monkeypatch, wanted):
    state = StatePaths(tmp_path / "home").ensure()
    tries: list[tuple[int, int]] = []

    def launch(state: StatePaths, ports: tuple[int, int]) -> str:
        tries.append(ports)
        raise StackError(f"failure {len(tries)}")
    monkeypatch.setattr(background, "_launch", launch)
    with pytest.raises(StackError, match="^failure 2$"):
        background._start(state)
    assert tries == [wanted, wanted] and "failure 1" in background.log_file(state).read_text()
