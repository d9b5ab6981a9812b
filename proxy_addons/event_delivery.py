"""Events delivered into sandboxes over HTTP (webhooks, Slack's Request URL).

Every 20 ms, for each environment with HTTP deliveries (mock_services/events/webhooks.py): its
timeline's due steps fire, and what is due is POSTed to the listener in its running sandbox,
through the sandbox's own network (sandbox/inbound.py): a URL the agent registered names its
own loopback, and nothing else is connected to. Every proxy worker runs it; the store lets one
claim each delivery.
"""

from __future__ import annotations

import asyncio
import http.client
import logging
from typing import Any
from urllib.parse import urlsplit

from detour_core.paths import StatePaths
from sandbox.inbound import connect_inside, sandbox_netns

POLL_S = 0.02
TIMEOUT_S = 10.0  # Slack waits 3 s for an answer, GitHub 10 s
LOOPBACK = ("localhost", "127.0.0.1")
log = logging.getLogger(__name__)


def post(env_id: str, request: Any) -> bool:
    """The request to the listener in the environment's running sandbox; True if it took it."""
    target = urlsplit(request.url)
    netns = sandbox_netns(env_id)
    if netns is None or target.scheme != "http" or target.hostname not in LOOPBACK:
        return False
    try:
        connection = http.client.HTTPConnection(target.hostname, target.port or 80, timeout=TIMEOUT_S)
        connection.sock = connect_inside(netns, "127.0.0.1", target.port or 80, TIMEOUT_S)
        connection.request("POST", target.path or "/", request.body, request.headers)
        answer = connection.getresponse()
        text = answer.read().decode(errors="replace")
        connection.close()
    except OSError:
        return False
    return 200 <= answer.status < 300 and (request.expect is None or request.expect in text)


def one_round(store: Any, env_id: str) -> None:
    """Nothing while no sandbox of the environment runs: nobody listens, and a watched
    environment costs a directory's look, not two reads of its state, every 20 ms."""
    from mock_services.events.webhooks import deliver_due
    from mock_services.timelines.run import fire_due
    if sandbox_netns(env_id) is None:
        return
    fire_due(store, env_id)
    deliver_due(store, env_id, post)


class EventDelivery:
    def __init__(self) -> None:
        self.task: asyncio.Task | None = None

    def running(self) -> None:
        self.task = asyncio.ensure_future(self.deliver())

    def done(self) -> None:
        if self.task is not None:
            self.task.cancel()

    async def deliver(self) -> None:
        """Imported here, once the proxy listens: the store is not what a proxy needs to start."""
        from mock_services.events.webhooks import watched
        from mock_services.store import EnvironmentStore
        store = EnvironmentStore(StatePaths.default())
        while True:
            await asyncio.sleep(POLL_S)
            for env_id in watched():
                try:
                    await asyncio.to_thread(one_round, store, env_id)
                except Exception:  # one environment's trouble must not stop the others' events
                    log.exception("event delivery for %s failed", env_id)
