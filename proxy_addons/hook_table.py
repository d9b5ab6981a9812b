"""mitmproxy's addon manager, with each event's handlers looked up once instead of per event.

For every event (and each request has eight: requestheaders, request, responseheaders,
response, each followed by `update`), mitmproxy's manager walks the whole chain (the master's
seven core addons and detour's fourteen): per addon a `safecall` context manager, a coroutine,
two generators and a `getattr`, whether or not the addon handles the event. In the proxy that
walk cost about as much CPU as detour's addons' own work. This manager makes, per event name,
the list of the chain's handlers once, and walks only that: the same handlers, in the same
order, each top-level addon still inside its own `safecall` (an addon's error is logged and the
next one runs; `AddonHalt` stops the event), coroutines still awaited. The table is made again
whenever the chain changes.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

from mitmproxy import exceptions, hooks
from mitmproxy.addonmanager import AddonManager, safecall

Plan = list[list[Callable]]  # per top-level addon that handles the event: its handlers, itself first


class HookTable(AddonManager):
    def __init__(self, master) -> None:
        self.plans: dict[str, Plan] = {}
        super().__init__(master)

    def plan(self, event: hooks.Hook) -> Plan:
        found = self.plans.get(event.name)
        if found is None:
            found = self.plans[event.name] = [funcs for addon in self.chain
                                              if (funcs := [func for _, func in self._iter_hooks(addon, event)])]
        return found

    async def trigger_event(self, event: hooks.Hook) -> None:
        plan = self.plan(event)
        if not plan:
            return
        args = event.args()
        for funcs in plan:
            try:
                with safecall():
                    for func in funcs:
                        result = func(*args)
                        if result is not None and inspect.isawaitable(result):
                            await result
            except exceptions.AddonHalt:
                return

    # The chain changes only through these: each forgets the table.

    def add(self, *addons) -> None:
        self.plans.clear()
        super().add(*addons)
        self.plans.clear()

    def register(self, addon):
        self.plans.clear()
        return super().register(addon)

    def remove(self, addon) -> None:
        self.plans.clear()
        super().remove(addon)
        self.plans.clear()

    def clear(self) -> None:
        self.plans.clear()
        super().clear()
        self.plans.clear()
