"""Events delivered into sandboxes over HTTP (webhooks, Slack's Request URL).

Every 20 ms while an environment with HTTP deliveries (mock_services/events/webhooks.py) has a
sandbox running, for each such environment: its timeline's due steps fire, and what is due is
POSTed to the listener in its running sandbox, through the sandbox's own network
(sandbox/inbound.py): a URL the agent registered names its own loopback, and nothing else is
connected to. Every proxy worker runs it; the store lets one
claim each delivery.

Each attempt is an audit record (`delivery`: queue, id, event, attempt) beside the agent's
requests. The environment's faults apply to deliveries as to requests, matched on the
listener's `POST localhost/PATH` and the payload's fields, counted and seeded alike: `drop`
(and `error`, `rate_limited`, `hang`) do not send the attempt, `lost_answer` sends it and loses
the listener's answer (the vendor sends it again: a duplicate), `latency` holds it back that
long on the environment's clock (others may overtake it). What the vendor does next is its
own retry schedule.

With no such sandbox running there is nothing to deliver, and the deliverer looks again after
IDLE_S, or as soon as a flow through this proxy is answered (an agent at work: its request may
have registered a listener or started what sends an event). An idle stack's proxy woke 50 times
a second for nothing; on a Ray cluster every node runs one (docs/scaling.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import logging
import random
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mitmproxy import ctx

from detour_core.audit import AuditRecord, AuditWriter, Delivery, iso
from detour_core.faults import Fault, draw
from detour_core.paths import StatePaths
from sandbox.inbound import connect_inside, sandbox_netns

POLL_S = 0.02  # while a sandbox that may be sent to runs
IDLE_S = 0.5   # while none does, unless a flow wakes it sooner
TIMEOUT_S = 10.0  # Slack waits 3 s for an answer, GitHub 10 s
LOOPBACK = ("localhost", "127.0.0.1")
NOT_SENT = {"drop", "error", "rate_limited", "hang"}
log = logging.getLogger(__name__)


def post(env_id: str, request: Any) -> int | None:
    """The request to the listener in the environment's running sandbox: its answer's status if
    it took it (a 2xx holding the challenge where one is asked, else 502), None for no answer."""
    target = urlsplit(request.url)
    netns = sandbox_netns(env_id)
    # An https address (Box asks for one) is plain HTTP to its port: detour is the vendor's TLS end,
    # as a tunnel is that hands a public https address to a local listener.
    if netns is None or target.scheme not in ("http", "https") or target.hostname not in LOOPBACK:
        return None
    try:
        port = target.port or (443 if target.scheme == "https" else 80)
        connection = http.client.HTTPConnection(target.hostname, port, timeout=TIMEOUT_S)
        connection.sock = connect_inside(netns, "127.0.0.1", port, TIMEOUT_S)
        connection.request("POST", target.path or "/", request.body, request.headers)
        answer = connection.getresponse()
        text = answer.read().decode(errors="replace")
        connection.close()
    except OSError:
        return None
    return answer.status if request.expect is None or request.expect in text else 502


class Deliverer:
    """Sends one environment's due deliveries, each through its faults, each recorded."""

    def __init__(self, state: StatePaths, policies: Any, faults: Any) -> None:
        from mock_services.store import EnvironmentStore
        self.store = EnvironmentStore(state)
        self.audit = AuditWriter(Path(ctx.options.detour_audit_dir))  # its own: it writes from a thread
        self.policies, self.faults = policies, faults

    def fault(self, env_id: str, request: Any) -> tuple[str, Fault, random.Random] | None:
        """The first of the environment's faults that hits this attempt (counted as a request's)."""
        target = urlsplit(request.url)
        try:
            payload = json.loads(request.body) if request.body else {}
        except ValueError:
            payload = {}
        for number, fault in enumerate(self.policies.for_env(env_id).faults, 1):
            if fault.hits("POST", target.hostname or "", target.path or "/", payload, None):
                nth = self.faults.counted(env_id, number, fault)
                if nth is not None:
                    return fault.label(number), fault, draw(number, fault, nth)
        return None

    def send(self, env_id: str, request: Any) -> Any:
        from mock_services.events.webhooks import Outcome
        started, status, hit = time.time(), None, self.fault(env_id, request)
        kind = hit[1].kind if hit else None
        if kind == "latency":
            outcome = Outcome(False, hit[1].latency_s(hit[2]))
        elif kind in NOT_SENT:
            outcome = Outcome(False)
        else:
            status = post(env_id, request)
            outcome = Outcome(status is not None and 200 <= status < 300 and kind != "lost_answer")
        self.record(env_id, request, status, started, hit[0] if hit else None)
        return outcome

    def record(self, env_id: str, request: Any, status: int | None, started: float, fault: str | None) -> None:
        target = urlsplit(request.url)
        self.audit.write(AuditRecord(
            decision="routed", env_id=env_id, host=target.hostname or "", port=target.port or 80, scheme="http",
            path=target.path or "/", service=request.queue.split(".", 1)[0], fault=fault,
            delivery=Delivery(queue=request.queue, id=request.delivery.id, event=request.event,
                              attempt=request.delivery.attempt),
            ts=iso(started), client="detour", mode="inbound", method="POST", status=status,
            duration_ms=round((time.time() - started) * 1000, 2), request_bytes=len(request.body), response_bytes=0))

    def one_round(self, env_id: str) -> bool:
        """Nothing while no sandbox of the environment runs: nobody listens, and a watched
        environment costs a directory's look, not two reads of its state. Whether one runs."""
        from mock_services.events.webhooks import deliver_due
        from mock_services.timelines.run import fire_due
        if sandbox_netns(env_id) is None:
            return False
        fire_due(self.store, env_id)
        deliver_due(self.store, env_id, self.send)
        return True


class EventDelivery:
    def __init__(self) -> None:
        self.task: asyncio.Task | None = None
        self.woken: asyncio.Event | None = None

    def running(self) -> None:
        self.woken = asyncio.Event()
        self.task = asyncio.ensure_future(self.deliver())

    def response(self, flow: Any) -> None:
        self.wake()

    def wake(self) -> None:
        """A flow answered (here or on the fast path): an idle deliverer looks at once (its request
        may have made work)."""
        if self.woken is not None:
            self.woken.set()

    def done(self) -> None:
        if self.task is not None:
            self.task.cancel()

    async def deliver(self) -> None:
        """Imported here, once the proxy listens: the store is not what a proxy needs to start."""
        from mock_services.events.webhooks import watched
        state = StatePaths.default()
        deliverer = Deliverer(state, ctx.master.addons.get("policies"), ctx.master.addons.get("faults"))
        live = True  # the first look comes soon
        while True:
            await asyncio.sleep(POLL_S)  # at most 50 rounds a second, however many flows wake it
            if not live:
                await self.woken_or(IDLE_S - POLL_S)
            self.woken.clear()  # before the round: a flow answered during it wakes the next
            live = False
            for env_id in watched(state.home):
                try:
                    live = await asyncio.to_thread(deliverer.one_round, env_id) or live
                except Exception:  # one environment's trouble must not stop the others' events
                    log.exception("event delivery for %s failed", env_id)
                    live = True

    async def woken_or(self, seconds: float) -> None:
        """Until a flow is answered, or `seconds`."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.woken.wait(), seconds)
