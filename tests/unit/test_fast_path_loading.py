"""A replica-bound tunnel that reaches the proxy while its replica app is still loading (a second
or two after the listeners open) waits for the app and is carried by the fast path; before, it
stayed on mitmproxy's layers for its whole life. An app that failed to load leaves it to mitmproxy,
the bytes already read put back in front."""

import asyncio
from concurrent.futures import Future

import pytest

from proxy_addons import fast_path
from proxy_addons.fast_tunnel import Target

HEAD = b"CONNECT slack.com:443 HTTP/1.1\r\nHost: slack.com:443\r\nProxy-Authorization: Basic eA==\r\n\r\n"


class Carried:
    """Stands for fast_tunnel.Tunnel: notes which tunnels the fast path took."""
    seen: list[Target] = []

    def __init__(self, fast, target, reader, writer, mitmproxy) -> None:
        self.target = target

    async def run(self) -> None:
        Carried.seen.append(self.target)


class Writer:
    def get_extra_info(self, name: str):
        return ("10.0.0.2", 40000) if name == "peername" else None


@pytest.fixture
def fast(monkeypatch) -> fast_path.FastPath:
    Carried.seen = []
    monkeypatch.setattr(fast_path, "Tunnel", Carried)
    addon = fast_path.FastPath()
    addon.on, addon.app = True, Future()
    addon.target = lambda head, peer: Target("env-1", "slack.com", "Basic eA==")  # EnvAuth and policy said yes
    return addon


async def connect(fast: fast_path.FastPath, handed: list[bytes]) -> asyncio.Task:
    """A connection whose CONNECT head has arrived, handled as the patched regular-mode handler does."""
    reader = asyncio.StreamReader()
    reader.feed_data(HEAD)
    reader.feed_eof()

    async def mitmproxy(instance, r, w) -> None:
        handed.append(await r.read())

    handle = fast.patched(mitmproxy)
    return asyncio.create_task(handle(None, reader, Writer()))


def test_a_tunnel_that_comes_while_the_app_loads_waits_for_it_and_is_carried(fast):
    async def scenario() -> list:
        handed: list[bytes] = []
        task = await connect(fast, handed)
        await asyncio.sleep(0.05)
        assert not task.done() and handed == [] and Carried.seen == []  # waiting, not given to mitmproxy
        fast.app.set_result(object())
        await asyncio.wait_for(task, 5)
        return handed

    assert asyncio.run(scenario()) == []
    assert [t.env_id for t in Carried.seen] == ["env-1"]


def test_an_app_that_failed_to_load_leaves_the_tunnel_to_mitmproxy_whole(fast):
    async def scenario() -> list:
        handed: list[bytes] = []
        task = await connect(fast, handed)
        await asyncio.sleep(0.05)
        fast.app.set_exception(ImportError("no replica app"))
        await asyncio.wait_for(task, 5)
        return handed

    assert asyncio.run(scenario()) == [HEAD]
    assert Carried.seen == []
