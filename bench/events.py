"""The events rows of `make bench`: from the write that causes an event to the agent's handler
(goal: p50 at most 50 ms, p99 at most 200 ms), for Slack's Socket Mode and for the Events API
POSTed into a sandbox. For Socket Mode a colleague posts in #engineering through the proxy with
their own token, the app is slack_sdk's SocketModeClient through the same proxy, and the time is
taken when its listener is called; over HTTP the colleague's post goes through the replica
itself (as a timeline's step does) and the listener in the sandbox notes each arrival."""

from __future__ import annotations

import ssl
import statistics
import sys
import threading
import time

from slack_sdk import WebClient
from slack_sdk.socket_mode import SocketModeClient
from slack_sdk.socket_mode.response import SocketModeResponse

from bench.common import program_file
from bench.stats import percentile
from certs.authority import CertificateAuthority
from detour.runner import run_in_environment
from detour.stack import StackInfo
from detour_core.credentials import secret_for
from detour_core.paths import StatePaths
from mock_services.events import outbox
from mock_services.slack import events_api
from mock_services.slack.router import act
from mock_services.store import EnvironmentStore
from sandbox.namespace import NamespaceSandbox

ENGINEERING, JOHN, AGENT = "C03IJKL9012", "U02JOHNDOE1", "U01AGENBOT9"


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


LISTENER = """
import json, os, sys, threading, time
from http.server import BaseHTTPRequestHandler, HTTPServer
from slack_sdk import WebClient

COUNT, seen = int(sys.argv[1]), []

class Events(BaseHTTPRequestHandler):
    def do_POST(self):
        arrived = time.time()
        payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        answer = payload.get("challenge", "").encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)
        event = payload.get("event", {})
        if event.get("type") == "message" and event.get("text", "").startswith("ping "):
            seen.append(f"{event['text']} {arrived}")
            if len(seen) == COUNT:
                print("\\n".join(seen), flush=True)
                os._exit(0)

    def log_message(self, *args):
        pass

server = HTTPServer(("127.0.0.1", 3000), Events)
threading.Thread(target=server.serve_forever, daemon=True).start()
WebClient(token=os.environ["SLACK_BOT_TOKEN"]).apps_manifest_update(app_id="A01AGENBOT9", manifest={
    "settings": {"event_subscriptions": {"request_url": "http://localhost:3000/slack/events"}}})
threading.Event().wait()
"""


def _delivered(store: EnvironmentStore, env_id: str, queue: str) -> bool:
    with store.open(env_id) as state:
        return not outbox.waiting(state, queue)


def bench_http_delivery(state: StatePaths, info: StackInfo, store: EnvironmentStore, count: int = 40) -> None:
    """The same write, delivered by POST to a listener in a namespace sandbox (its own loopback);
    the listener notes when each arrives, the host when it wrote (one machine, one clock)."""
    env_id = store.create("slack_bench_v2").env_id
    john = store.credentials(env_id).tokens[JOHN]
    program = program_file("events_listener.py", LISTENER)
    outcome: dict[str, object] = {}
    runner = threading.Thread(target=lambda: outcome.update(result=run_in_environment(
        state, info, env_id, NamespaceSandbox(state), [sys.executable, str(program), str(count)], program=program)))
    runner.start()
    http_queue = events_api.queue(AGENT)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (_registered(store, env_id) and _delivered(store, env_id, http_queue)):
        time.sleep(0.02)
    written = {}
    for n in range(count):
        written[f"ping {n}"] = time.time()
        act(store, env_id, john, "chat.postMessage", {"channel": ENGINEERING, "text": f"ping {n}"})
        while runner.is_alive() and not _delivered(store, env_id, http_queue):
            time.sleep(0.005)
    runner.join(60)
    result = outcome.get("result")
    arrived = dict(line.rsplit(" ", 1) for line in (result.stdout if result else "").splitlines() if line.startswith("ping "))
    latencies = [(float(arrived[text]) - at) * 1000 for text, at in written.items() if text in arrived]
    if len(latencies) < count:
        print(f"  Slack Events API over HTTP: {len(latencies)} of {count} delivered "
              f"({result.stderr[-300:] if result else 'no run'})")
        return
    print(f"  Slack Events API, write -> handler (POST into a namespace sandbox) median {statistics.median(latencies):6.1f} ms"
          f"   p99 {percentile(latencies, 99):6.1f} ms   (n={count}; goal: p50 <= 50 ms, p99 <= 200 ms)")


def _registered(store: EnvironmentStore, env_id: str) -> bool:
    with store.open(env_id) as state:
        return AGENT in events_api.listening(state)
