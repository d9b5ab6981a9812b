"""The bench row for secrets: a 1 MB answer from a passed-through host, through the proxy, with
and without a secret for that host (so with and without scrubbing the answer), read whole
(Content-Length) and streamed (chunked). The host is an HTTPS server this module runs on a
loopback address of its own, with a certificate from a CA it makes for the run."""

from __future__ import annotations

import ssl
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

from bench.proxy import proxy_cpu
from certs.authority import CertificateAuthority
from detour.stack import Stack
from detour_core.credentials import secret_for
from detour_core.paths import StatePaths
from detour_core.policy import Policy, policy_file, save_policy
from detour_core.secrets import SecretStore
from mock_services.store import EnvironmentStore
from tests.e2e.upstream import TRUSTED, make_certificates

HOST, ADDRESS = TRUSTED[0], "127.0.0.77"  # a loopback address no other part of the bench uses
BODY = (b'{"text": "' + b"lorem ipsum dolor sit amet " * 40_000)[:999_998] + b'"}'
REQUESTS = 40


class OneMegabyte(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if self.path == "/chunked":
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for at in range(0, len(BODY), 65536):
                piece = BODY[at:at + 65536]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.write(b"0\r\n\r\n")
            return
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)

    def log_message(self, *args) -> None:
        pass


def serve(folder: Path) -> ThreadingHTTPServer:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(folder / "trusted.pem", folder / "trusted.key")
    server = ThreadingHTTPServer((ADDRESS, 443), OneMegabyte)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def bench_answer_scrubbing(state: StatePaths, store: EnvironmentStore) -> None:
    with tempfile.TemporaryDirectory(prefix="detour-bench-upstream-") as tmp:
        ca = make_certificates(Path(tmp))
        server = serve(Path(tmp))
        stack = Stack(state, upstream_hosts={HOST: ADDRESS}, upstream_ca=ca)
        try:
            with stack as info:
                bundle = str(CertificateAuthority(state).ensure().bundle)
                for label, secret in (("no secret", False), ("a secret, scrubbed", True)):
                    env_id = store.create("slack_default").env_id
                    save_policy(policy_file(state, env_id), Policy(allow=[HOST]))
                    if secret:
                        SecretStore(state.secrets_dir).set(env_id, "PARTNER_KEY", "sk-live-" + "0" * 40, [HOST])
                    proxy = info.access(env_id, secret_for(state, env_id)).url()
                    for path in ("/whole", "/chunked"):
                        print(f"  1 MB answer {path[1:]:<7}, {label:<18}: " + _timed(stack, proxy, bundle, path))
        finally:
            server.shutdown()
            server.server_close()


def _timed(stack: Stack, proxy: str, bundle: str, path: str) -> str:
    """Each answer on a connection of its own (its TLS handshakes included, the same in every row)."""
    times = []
    before = proxy_cpu(stack)
    for _ in range(REQUESTS):
        with httpx.Client(proxy=proxy, verify=bundle, timeout=60) as client:
            started = time.perf_counter()
            answer = client.get(f"https://{HOST}{path}")
            times.append((time.perf_counter() - started) * 1000)
            assert answer.content == BODY, answer.text[:300]
    cpu = (proxy_cpu(stack) - before) / REQUESTS * 1000
    return (f"p50 {statistics.median(times):6.1f} ms   {len(BODY) / 1e6 / statistics.median(times) * 1000:6.1f} MB/s   "
            f"proxy CPU {cpu:5.1f} ms/answer   (n={REQUESTS})")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="detour-bench-") as home:
        paths = StatePaths(Path(home)).ensure()
        bench_answer_scrubbing(paths, EnvironmentStore(paths))
