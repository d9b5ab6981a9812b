"""The events row of `make bench`: from the write that causes an event to the agent's handler,
for Slack's Socket Mode (goal: p50 at most 50 ms, p99 at most 200 ms). A colleague posts in
#engineering through the proxy with their own token; the app is slack_sdk's SocketModeClient
through the same proxy, and the time is taken when its listener is called with the message."""

from __future__ import annotations

import ssl
import statistics
import threading
import time

from slack_sdk import WebClient
from slack_sdk.socket_mode import SocketModeClient
from slack_sdk.socket_mode.response import SocketModeResponse

from bench.stats import percentile
from certs.authority import CertificateAuthority
from detour.stack import StackInfo
from detour_core.credentials import secret_for
from detour_core.paths import StatePaths
from mock_services.store import EnvironmentStore

ENGINEERING, JOHN = "C03IJKL9012", "U02JOHNDOE1"


class Arrivals:
    """When each message's event reached the app's listener, by its ts."""

    def __init__(self) -> None:
        self.at: dict[str, float] = {}
        self.changed = threading.Condition()

    def listener(self, client: SocketModeClient, request) -> None:
        client.send_socket_mode_response(SocketModeResponse(envelope_id=request.envelope_id))
        event = request.payload.get("event", {})
        if event.get("type") == "message":
            with self.changed:
                self.at[event["ts"]] = time.perf_counter()
                self.changed.notify_all()

    def wait(self, ts: str) -> float:
        with self.changed:
            if not self.changed.wait_for(lambda: ts in self.at, timeout=30):
                raise TimeoutError(f"no event for message {ts} within 30 s")
            return self.at[ts]


def bench_socket_mode(state: StatePaths, info: StackInfo, store: EnvironmentStore, label: str, count: int = 60) -> None:
    env_id = store.create("slack_bench_v2").env_id
    credentials = store.credentials(env_id)
    proxy = info.access(env_id, secret_for(state, env_id)).url()
    context = ssl.create_default_context(cafile=str(CertificateAuthority(state).ensure().bundle))
    app = WebClient(token=credentials.variables["SLACK_BOT_TOKEN"], proxy=proxy, ssl=context)
    john = WebClient(token=credentials.tokens[JOHN], proxy=proxy, ssl=context)
    arrivals = Arrivals()
    socket = SocketModeClient(app_token=credentials.variables["SLACK_APP_TOKEN"], web_client=app, proxy=proxy)
    socket.socket_mode_request_listeners.append(arrivals.listener)
    socket.connect()
    try:
        arrivals.wait(john.chat_postMessage(channel=ENGINEERING, text="warm-up")["ts"])  # connection and imports
        latencies = []
        for n in range(count):
            began = time.perf_counter()
            ts = john.chat_postMessage(channel=ENGINEERING, text=f"ping {n}")["ts"]
            latencies.append((arrivals.wait(ts) - began) * 1000)
    finally:
        socket.close()
    print(f"  Slack Socket Mode, write -> handler ({label:<22}) median {statistics.median(latencies):6.1f} ms   "
          f"p99 {percentile(latencies, 99):6.1f} ms   (n={count}; goal: p50 <= 50 ms, p99 <= 200 ms)")
