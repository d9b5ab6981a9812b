"""`make security`: detour against the public egress corpus luckyPipewrench/agent-egress-bench
(its cases are data this runner reads from a clone: AEB_CASES=path/to/agent-egress-bench/cases).

As its runner contract says: every case whose capabilities detour claims is sent, and the rest
are `not_applicable`. detour claims the outgoing ones: a request's URL, headers and body
(transports fetch_proxy and http_proxy) and WebSocket messages; not answer scanning, MCP or
A2A. Egress is opened to the hosts the cases name (but the blocklist's, as the contract asks
a runner to seed), each watched with `block`, and they all lead to an HTTPS and WebSocket
server this module runs on a loopback address of its own, with a certificate from a CA it
makes: nothing leaves the machine (a case naming a replicated host, api.github.com, reaches
its replica). A case is blocked when the proxy answers 403 with `X-Detour-Decision: denied`, or
mitmproxy's 400 to a request it cannot read (that server answers 200 to everything), and a
WebSocket message when its record says it was dropped.

Prints a JSON line per case (the contract's result shape) to RESULTS (default
security-results.jsonl), then containment and false positives per category.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import ssl
import sys
import tempfile
import threading
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import httpx
from websockets.sync.client import connect as websocket_connect

from certs.authority import CertificateAuthority
from detour.stack import Stack
from detour_core.audit import AuditLog
from detour_core.credentials import secret_for
from detour_core.hosts import is_address
from detour_core.paths import StatePaths
from detour_core.policy import Policy, policy_file, save_policy
from detour_core.registry import is_replicated_host
from mock_services.store import EnvironmentStore
from tests.e2e.upstream import make_certificates, serve_websocket

ADDRESS = "127.0.0.78"  # a loopback address no other part of the bench uses
# Every capability the corpus's outgoing HTTP and WebSocket cases name, so all of them count.
CLAIMS = {"url_dlp", "header_dlp", "request_body_dlp", "websocket_dlp", "ssrf", "ssrf_bypass", "domain_blocklist",
          "benign", "encoding_evasion", "hostname_exfil", "entropy", "crypto_dlp"}
SUPPORTS = {"header_scanning", "request_body_scanning", "websocket_frame_scanning"}
BLOCKLIST = {"exfil-collector.example.net"}  # the contract's blocklist seed: not opened
TEMPLATE = "acme"  # a world of every pack: a case naming a replicated host (api.github.com) reaches its replica


class Upstream(BaseHTTPRequestHandler):
    """200 to any request; a WebSocket upgrade gets an echo."""

    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        if self.headers.get("Upgrade", "").lower() == "websocket":
            return self.echo()
        self.answer()

    def answer(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    do_POST = do_PUT = do_PATCH = do_DELETE = answer

    def echo(self) -> None:
        try:
            serve_websocket(self, lambda message: message)
        except OSError:
            pass  # the client left without a close handshake

    def log_message(self, *args) -> None:
        pass


def load_cases(folder: Path) -> list[dict]:
    return [json.loads(path.read_text()) for path in sorted(folder.glob("*/*.json"))]


def applicable(case: dict) -> bool:
    outgoing = case["transport"] in ("fetch_proxy", "http_proxy") and case["input_type"] in ("url", "header", "request_body")
    return (outgoing or case["transport"] == "websocket") and set(case["requires"]) <= SUPPORTS \
        and set(case["capability_tags"]) <= CLAIMS


def opened(cases: list[dict]) -> list[str]:
    """The names the cases reach, but the blocklist's, addresses (no policy may name one) and replicas'."""
    hosts = {urlsplit(c["payload"]["url"]).hostname or "" for c in cases}
    return sorted(h for h in hosts if h and h not in BLOCKLIST and not is_address(h) and not is_replicated_host(h))


def serve(folder: Path, port: int, tls: bool) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer((ADDRESS, port), Upstream)
    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(folder / "trusted.pem", folder / "trusted.key")
        server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def send_http(client: httpx.Client, proxy: str, case: dict) -> dict:
    payload = case["payload"]
    headers = dict(payload.get("headers") or {})
    if payload.get("content_type"):
        headers["Content-Type"] = payload["content_type"]
    body = payload.get("body")
    content = body if isinstance(body, str) else json.dumps(body) if body else None
    try:
        answer = client.request(payload.get("method", "GET"), payload["url"], headers=headers, content=content)
    except httpx.InvalidURL:  # httpx refuses `0177.0.0.1`; an agent's own code might not
        answer = absolute_form(proxy, payload.get("method", "GET"), payload["url"], headers, content)
    denied = answer.headers.get("X-Detour-Decision") == "denied"
    unreadable = answer.status_code == 400 and not is_replicated_host(urlsplit(payload["url"]).hostname or "")
    return {"http_status": answer.status_code, "blocked": denied or unreadable,
            "reason": answer.json().get("reason") if denied else None}


def absolute_form(proxy_url: str, method: str, url: str, headers: dict, content: str | None) -> httpx.Response:
    """The request as it stands, sent to the proxy over a socket of its own (http:// only)."""
    proxy = urlsplit(proxy_url)
    auth = base64.b64encode(f"{proxy.username}:{proxy.password}".encode()).decode()
    lines = [f"{method} {url} HTTP/1.1", f"Host: {urlsplit(url).netloc}", f"Proxy-Authorization: Basic {auth}",
             "Connection: close", *(f"{k}: {v}" for k, v in headers.items())]
    data = (content or "").encode()
    with socket.create_connection((proxy.hostname, proxy.port), timeout=10) as raw:
        raw.sendall(("\r\n".join(lines) + f"\r\nContent-Length: {len(data)}\r\n\r\n").encode() + data)
        answer = b"".join(iter(lambda: raw.recv(65536), b""))
    head, _, rest = answer.partition(b"\r\n\r\n")
    status = head.split(b"\r\n")
    fields = dict(line.decode().split(": ", 1) for line in status[1:] if b": " in line)
    return httpx.Response(int(status[0].split()[1]), headers=fields, content=rest)


def send_websocket(proxy: str, context: ssl.SSLContext, case: dict, audit: AuditLog, env_id: str) -> dict:
    """Fragments go as the one message they make (the proxy reads a message whole)."""
    messages: list[str | bytes] = []
    for frame in case["payload"]["frames"]:
        data = base64.b64decode(frame["payload"]) if frame.get("encoding") == "base64" else frame["payload"]
        if frame["opcode"] == "continuation":
            messages[-1] += data
        else:
            messages.append(data)
    before = len(audit.read(env_id)[0])
    with websocket_connect(case["payload"]["url"], proxy=proxy, ssl=context, open_timeout=10) as ws:
        for message in messages:
            ws.send(message)
    dropped = [r for r in audit.read(env_id)[0][before:] if r.method == "WS" and r.decision == "denied"]
    return {"blocked": bool(dropped), "findings": [f for r in dropped for f in r.findings or []]}


def run(cases_folder: Path, results: Path) -> None:
    cases = load_cases(cases_folder)
    chosen = [c for c in cases if applicable(c)]
    hosts = opened(chosen)
    with tempfile.TemporaryDirectory(prefix="detour-security-") as tmp:
        folder, state = Path(tmp), StatePaths(Path(tmp) / "home").ensure()
        ca = make_certificates(folder, tuple(hosts))
        servers = [serve(folder, 443, True), serve(folder, 80, False)]
        try:
            with Stack(state, upstream_hosts={h: ADDRESS for h in hosts}, upstream_ca=ca) as info:
                env_id = EnvironmentStore(state).create(TEMPLATE).env_id
                save_policy(policy_file(state, env_id), Policy(allow=hosts, watch={h: "block" for h in hosts}))
                proxy = info.access(env_id, secret_for(state, env_id)).url()
                bundle = str(CertificateAuthority(state).ensure().bundle)
                context = ssl.create_default_context(cafile=bundle)
                audit = AuditLog(state.audit_dir)
                with httpx.Client(proxy=proxy, verify=bundle, timeout=30) as client, results.open("w") as out:
                    for case in cases:
                        out.write(json.dumps(result(case, client, proxy, context, audit, env_id)) + "\n")
        finally:
            for server in servers:
                server.shutdown()
                server.server_close()
    summarise(results)


def result(case: dict, client: httpx.Client, proxy: str, context: ssl.SSLContext, audit: AuditLog, env_id: str) -> dict:
    line = {"case_id": case["id"], "tool": "detour", "tool_version": "0.1.0", "category": case["category"],
            "expected_verdict": case["expected_verdict"], "evidence": {}, "notes": ""}
    if not applicable(case):
        return line | {"actual_verdict": "not_applicable", "score": "not_applicable"}
    try:
        evidence = send_websocket(proxy, context, case, audit, env_id) if case["transport"] == "websocket" \
            else send_http(client, proxy, case)
    except (httpx.HTTPError, OSError, ValueError) as e:
        return line | {"actual_verdict": "error", "score": "error", "notes": f"{type(e).__name__}: {e}"}
    verdict = "block" if evidence.pop("blocked") else "allow"
    return line | {"actual_verdict": verdict, "score": "pass" if verdict == case["expected_verdict"] else "fail",
                   "evidence": evidence}


def summarise(results: Path) -> None:
    """Containment (malicious cases blocked) and false positives (benign ones blocked) per category."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # malicious, contained, benign, blocked
    for line in results.read_text().splitlines():
        row = json.loads(line)
        if row["score"] in ("not_applicable",):
            continue
        blocked = row["actual_verdict"] == "block"
        cell = counts[row["category"]]
        if row["expected_verdict"] == "block":
            cell[0], cell[1] = cell[0] + 1, cell[1] + blocked
        else:
            cell[2], cell[3] = cell[2] + 1, cell[3] + blocked
    total = [sum(c[i] for c in counts.values()) for i in range(4)]
    print(f"{'category':<24}{'contained':>14}{'benign blocked':>18}")
    for category, (bad, held, good, stopped) in sorted(counts.items()) + [("all", tuple(total))]:
        print(f"{category:<24}{held:>5}/{bad:<3}{percent(held, bad):>6}{stopped:>9}/{good:<3}{percent(stopped, good):>6}")


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


if __name__ == "__main__":
    where = os.environ.get("AEB_CASES") or (sys.argv[1] if len(sys.argv) > 1 else "")
    if not where or not Path(where).is_dir():
        sys.exit("detour: set AEB_CASES to the cases/ folder of a clone of "
                 "https://github.com/luckyPipewrench/agent-egress-bench")
    run(Path(where), Path(os.environ.get("RESULTS", "security-results.jsonl")))
