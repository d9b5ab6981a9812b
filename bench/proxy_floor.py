"""The floor under the stack's CPU per replica call (#52): a proxy with one hook that sends every
request to a bare uvicorn app, and that app, measured as bench_stack_cpu_per_call measures
detour's stack: the CPU of both processes over N HTTPS calls through the proxy, for a client that
opens a connection per call and for one that keeps it. Two proxies: a stock `mitmdump` (all its
default addons) and mitmproxy's core as detour's proxy runs it (proxy_addons/__main__.py: the
core addons, the hook table) with the one hook in place of detour's addons. Both sign with a
detour CA (an EC key: a stock confdir's RSA key costs more per handshake).

What detour's proxy and replica add per call is the stack's figure less the second floor; if that
floor alone is above the goal, mitmproxy's own per-flow cost is the floor of any design with a
mitmproxy in front of a replica process. After the floors it prints the prototype that goes under
them (bench/proxy_lean.py) and the carriage alone in compiled code (bench/compiled_front.py).
`python -m bench.proxy_floor [CALLS]` runs it alone.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import psutil
from mitmproxy import ctx, http
from mitmproxy.tools import main

from bench.compiled_front import bench_compiled_front
from bench.proxy_lean import bench_proxy_lean
from certs.authority import CertificateAuthority
from detour_core.paths import StatePaths
from proxy_addons.__main__ import DetourMaster, command_line

LOOPBACK = "127.0.0.1"

CALLS = 300
HOST = "floor.invalid"  # never resolved: the hook below sends every request to the app on loopback
ANSWER = b'{"ok":true,"url":"https://floor.invalid/","team":"floor","user":"bench"}'


class Upstream:
    """The whole addon: the least a proxy in front of a replica must do per request (name the
    replica as its upstream). `-s` loads this file into a stock mitmdump."""

    def load(self, loader) -> None:
        loader.add_option("floor_app", int, 0, "The bare app's port on loopback.")

    def request(self, flow: http.HTTPFlow) -> None:
        flow.request.scheme, flow.request.host, flow.request.port = "http", LOOPBACK, ctx.options.floor_app


addons = [Upstream()]


class FloorMaster(DetourMaster):
    addons_after_core = addons


async def app(scope, receive, send) -> None:
    """A bare ASGI app: reads the body, answers a small JSON document (as auth.test's)."""
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(ANSWER)).encode())]})
    await send({"type": "http.response.body", "body": ANSWER})


def free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


def wait_listening(port: int, proc: subprocess.Popen, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args[:3]} exited with {proc.returncode}")
        with contextlib.suppress(OSError), socket.create_connection((LOOPBACK, port), timeout=1):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port} after {timeout} s")


@contextlib.contextmanager
def started(argv: list[str], port: int) -> Iterator[psutil.Process]:
    """A stock mitmdump loads this file as a script: its imports (bench, detour's packages) are
    found from the checkout's root, wherever the bench was started from."""
    path = os.pathsep.join(filter(None, [str(Path(__file__).parents[1]), os.environ.get("PYTHONPATH")]))
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env=os.environ | {"PYTHONPATH": path})
    try:
        wait_listening(port, proc)
        yield psutil.Process(proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


PROXIES = ("stock mitmdump", "mitmproxy's core as detour runs it")


def proxy_argv(kind: str, port: int, confdir: Path, app_port: int) -> list[str]:
    options = ["--set", f"confdir={confdir}", "--set", "connection_strategy=lazy", "--set", "upstream_cert=false",
               "--set", f"floor_app={app_port}", "-q"]
    if kind == PROXIES[0]:
        return [str(Path(sys.executable).parent / "mitmdump"), "--listen-host", LOOPBACK, "--listen-port", str(port),
                "-s", __file__, *options]
    return [sys.executable, "-m", "bench.proxy_floor", "serve", "--mode", f"regular@{LOOPBACK}:{port}", *options]


@contextlib.contextmanager
def floor_stack(kind: str) -> Iterator[tuple[str, str, list[psutil.Process]]]:
    """A bare uvicorn app and a proxy of `kind` in front of it: the proxy URL, the CA certificate
    the client trusts, and the two processes."""
    app_port, proxy_port = free_port(), free_port()
    with tempfile.TemporaryDirectory(prefix="detour-floor-") as tmp:
        state = StatePaths(Path(tmp)).ensure()
        trust = CertificateAuthority(state).ensure()
        with started([sys.executable, "-m", "uvicorn", "bench.proxy_floor:app", "--host", LOOPBACK, "--port",
                      str(app_port), "--log-level", "warning", "--no-access-log"], app_port) as server, \
                started(proxy_argv(kind, proxy_port, state.mitmproxy_confdir, app_port), proxy_port) as proxy:
            yield f"http://{LOOPBACK}:{proxy_port}", str(trust.cert), [proxy, server]


def cpu_seconds(processes: list[psutil.Process]) -> float:
    return sum(t.user + t.system for t in (p.cpu_times() for p in processes))


def ways(proxy: str, bundle: str, url: str, calls: int, headers: dict | None = None) -> dict[str, Callable[[], None]]:
    """The client's two ways, as bench_stack_cpu_per_call's: a connection per call, one kept."""
    def a_connection_per_call() -> None:
        for _ in range(calls):
            with httpx.Client(proxy=proxy, verify=bundle) as client:
                assert client.post(url, headers=headers).json()["ok"]

    def one_kept_connection() -> None:
        with httpx.Client(proxy=proxy, verify=bundle) as client:
            for _ in range(calls):
                assert client.post(url, headers=headers).json()["ok"]

    return {"a new connection per call": a_connection_per_call, "one kept connection": one_kept_connection}


def per_call_ms(processes: list[psutil.Process], way: Callable[[], None], calls: int, warm: bool = True) -> list[float]:
    """CPU ms per call of each process (after a warm round: the proxy's certificate for the host)."""
    if warm:
        way()
    before = [cpu_seconds([p]) for p in processes]
    way()
    return [(cpu_seconds([p]) - b) / calls * 1000 for p, b in zip(processes, before)]


def bench_proxy_floor(calls: int = CALLS) -> None:
    for kind in PROXIES:
        with floor_stack(kind) as (proxy, cert, processes):
            for label, way in ways(proxy, cert, f"https://{HOST}/api/auth.test", calls).items():
                proxy_ms, app_ms = per_call_ms(processes, way, calls)
                print(f"  floor, {kind} + a bare uvicorn app, {label:<25}: {proxy_ms + app_ms:5.2f} ms "
                      f"(proxy {proxy_ms:4.2f}, app {app_ms:4.2f}; n={calls}; load {os.getloadavg()[0]:.1f})")
    bench_proxy_lean(calls)
    bench_compiled_front(calls)


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        main.run(FloorMaster, command_line, sys.argv[2:])
    else:
        bench_proxy_floor(int(sys.argv[1]) if len(sys.argv) > 1 else CALLS)
