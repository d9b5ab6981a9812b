"""The proxy's addon manager (proxy_addons/hook_table.py) against mitmproxy's own: the same
handlers in the same order, errors kept to their addon, AddonHalt stopping the event, and a
chain that changes after an event still seen whole."""

import asyncio
import logging

from mitmproxy import addonmanager, exceptions, master, options
from mitmproxy.proxy.layers import http as http_layer
from mitmproxy.test import tflow

from proxy_addons.hook_table import HookTable


class Recorder:
    """Records each hook it handles as (name, hook); `addons` are its children, as mitmproxy nests them."""

    def __init__(self, name: str, calls: list, children: tuple = (), fail: bool = False, halt: bool = False) -> None:
        self.name, self.calls, self.addons, self.fail, self.halt = name, calls, list(children), fail, halt

    def requestheaders(self, flow) -> None:
        self.calls.append((self.name, "requestheaders"))
        if self.fail:
            raise RuntimeError(f"{self.name} broke")
        if self.halt:
            raise exceptions.AddonHalt()

    async def response(self, flow) -> None:
        await asyncio.sleep(0)
        self.calls.append((self.name, "response"))


class Silent:
    """Handles nothing."""


def chain(calls: list, **kwargs) -> list:
    return [Recorder("a", calls, (Recorder("a.child", calls),)), Silent(), Recorder("b", calls, **kwargs),
            Recorder("c", calls)]


async def calls_made(manager_type, **kwargs) -> list:
    calls: list = []
    made = master.Master(options.Options())
    made.addons = manager_type(made)
    made.addons.add(*chain(calls, **kwargs))
    flow = tflow.tflow(resp=True)
    try:
        for _ in range(2):  # the second time from the table made the first time
            await made.addons.handle_lifecycle(http_layer.HttpRequestHeadersHook(flow))
            await made.addons.handle_lifecycle(http_layer.HttpResponseHook(flow))
    finally:
        made._legacy_log_events.uninstall()  # it logs into this event loop, which ends here
    return calls


def test_the_same_handlers_run_in_the_same_order_as_under_mitmproxys_manager():
    ours = asyncio.run(calls_made(HookTable))
    assert ours == asyncio.run(calls_made(addonmanager.AddonManager))
    assert ours[:4] == [("a", "requestheaders"), ("a.child", "requestheaders"), ("b", "requestheaders"),
                        ("c", "requestheaders")]


def test_an_addons_error_is_logged_and_the_next_addon_still_runs(caplog):
    with caplog.at_level(logging.ERROR):
        ours = asyncio.run(calls_made(HookTable, fail=True))
    assert ("c", "requestheaders") in ours and "b broke" in caplog.text
    assert ours == asyncio.run(calls_made(addonmanager.AddonManager, fail=True))


def test_addon_halt_stops_the_event_for_the_addons_after_it():
    ours = asyncio.run(calls_made(HookTable, halt=True))
    assert ("c", "requestheaders") not in ours and ("c", "response") in ours
    assert ours == asyncio.run(calls_made(addonmanager.AddonManager, halt=True))


def test_an_addon_added_after_an_event_gets_the_next_one():
    async def run() -> list:
        calls: list = []
        made = master.Master(options.Options())
        made.addons = HookTable(made)
        made.addons.add(Recorder("first", calls))
        flow = tflow.tflow()
        await made.addons.handle_lifecycle(http_layer.HttpRequestHeadersHook(flow))
        late = Recorder("late", calls)
        made.addons.add(late)
        await made.addons.handle_lifecycle(http_layer.HttpRequestHeadersHook(flow))
        made.addons.remove(late)
        await made.addons.handle_lifecycle(http_layer.HttpRequestHeadersHook(flow))
        return calls
    assert asyncio.run(run()) == [("first", "requestheaders")] * 2 + [("late", "requestheaders"),
                                                                      ("first", "requestheaders")]


def test_the_proxys_master_uses_the_table_with_every_addon_and_the_terminal_log():
    from proxy_addons.__main__ import DetourMaster

    async def build() -> tuple[type, list[str]]:
        made = DetourMaster(options.Options())
        return type(made.addons), [type(a).__name__ for a in made.addons.chain]
    manager, names = asyncio.run(build())
    assert manager is HookTable
    assert names[0] == "TermLog" and names[-1] == "AuditRecorder" and "Router" in names
