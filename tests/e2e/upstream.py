"""A real host, as far as detour can tell: HTTPS on :443 inside a lab namespace, for the
names a test allows, with certificates from a CA the test makes (and one it does not trust).

    python -m tests.e2e.upstream FOLDER    # FOLDER: ca.pem, trusted.pem/key, untrusted.pem/key; logs to FOLDER/seen
                                           # and each request's Authorization to FOLDER/authorizations

`/echo?form=F` answers with what it received (headers, path, body) in the form F (ECHO_FORMS),
as a host that echoes a credential would. A WebSocket upgrade gets an echo: each message logged
to FOLDER/websocket as it arrived, and sent back with `echo: ` before it (wsproto's frames).
"""

from __future__ import annotations

import base64
import datetime
import gzip
import json
import ssl
import sys
import threading
import time
from collections.abc import Callable
from urllib.parse import parse_qs, quote, urlsplit
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from wsproto.connection import Connection as WebSocket, ConnectionType
from wsproto.events import BytesMessage, CloseConnection, Ping, TextMessage
from wsproto.utilities import generate_accept_token

TRUSTED = ("api.partner.test", "eu.models.test")
# How /echo answers: in JSON (with the Authorization it got in a header too), base64 or URL-encoded
# JSON, gzip, chunked in 5-byte pieces (plain or gzip), over a MiB written in two halves that
# split the Authorization, with a compression no client knows, or switching protocols.
ECHO_FORMS = ("json", "base64", "urlencoded", "gzip", "chunked", "gzip-chunked", "large", "compress", "upgrade")
UNTRUSTED = "untrusted.test"


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _certificate(subject: str, names: tuple[str, ...], issuer_key, issuer: str, key, ca: bool) -> x509.Certificate:
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (x509.CertificateBuilder().subject_name(_name(subject)).issuer_name(_name(issuer))
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if names:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(n) for n in names]), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def make_certificates(folder: Path, names: tuple[str, ...] = TRUSTED) -> Path:
    """ca.pem (the test's CA), a leaf for `names` (TRUSTED) signed by it, and a self-signed one for UNTRUSTED."""
    def save(name: str, cert: x509.Certificate, key) -> None:
        (folder / f"{name}.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        (folder / f"{name}.key").write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                                                serialization.PrivateFormat.PKCS8,
                                                                serialization.NoEncryption()))
    ca_key, leaf_key, other_key = (ec.generate_private_key(ec.SECP256R1()) for _ in range(3))
    save("ca", _certificate("detour test CA", (), ca_key, "detour test CA", ca_key, True), ca_key)
    save("trusted", _certificate(TRUSTED[0], names, ca_key, "detour test CA", leaf_key, False), leaf_key)
    save("untrusted", _certificate(UNTRUSTED, (UNTRUSTED,), other_key, UNTRUSTED, other_key, False), other_key)
    return folder / "ca.pem"


def serve_websocket(handler: BaseHTTPRequestHandler, answer: Callable[[str | bytes], str | bytes]) -> None:
    """A WebSocket upgrade accepted on `handler`'s connection: each whole message (its fragments
    joined) goes to `answer`, and what that returns is sent back, until the client closes."""
    handler.send_response(101)
    handler.send_header("Upgrade", "websocket")
    handler.send_header("Connection", "Upgrade")
    handler.send_header("Sec-WebSocket-Accept", generate_accept_token(handler.headers["Sec-WebSocket-Key"].encode()).decode())
    handler.end_headers()
    handler.wfile.flush()
    handler.close_connection = True
    frames = WebSocket(ConnectionType.SERVER)
    parts: list = []
    while data := handler.connection.recv(65536):
        frames.receive_data(data)
        for event in frames.events():
            if isinstance(event, (TextMessage, BytesMessage)):
                parts.append(event.data)
                if not event.message_finished:
                    continue
                reply = answer(("" if isinstance(event, TextMessage) else b"").join(parts))
                parts = []
                handler.connection.sendall(frames.send(TextMessage(data=reply) if isinstance(reply, str)
                                                       else BytesMessage(data=reply)))
            elif isinstance(event, (CloseConnection, Ping)):
                handler.connection.sendall(frames.send(event.response()))
                if isinstance(event, CloseConnection):
                    return


def serve(folder: Path) -> None:
    seen = folder / "seen"

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            if self.headers.get("Upgrade", "").lower() == "websocket":
                return self.websocket()
            if self.path.startswith("/echo"):
                return self.echo(b"")
            with seen.open("a") as log:
                log.write(f"{self.headers.get('Host')} {self.path}\n")
            with (folder / "authorizations").open("a") as log:  # what a secret's owner would receive
                log.write(json.dumps([self.path, self.headers.get("Authorization")]) + "\n")
            body = json.dumps({"host": self.headers.get("Host"), "path": self.path}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            """An upload: what arrived of it (its length, first and last 80 bytes), as its owner saw it."""
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path.startswith("/echo"):
                return self.echo(body)
            with (folder / "uploads").open("a") as log:
                log.write(json.dumps([self.headers.get("Host"), self.path, self.headers.get("Authorization"),
                                      len(body), body[:80].decode("latin-1"), body[-80:].decode("latin-1")]) + "\n")
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def echo(self, body: bytes) -> None:
            """What came, logged to FOLDER/echoes as its owner saw it, and answered in the form asked."""
            authorization = self.headers.get("Authorization") or ""
            with (folder / "echoes").open("a") as log:
                log.write(json.dumps([self.path, authorization, body.decode("latin-1")]) + "\n")
            got = json.dumps({"headers": dict(self.headers), "path": self.path, "body": body.decode("latin-1")}).encode()
            form = parse_qs(urlsplit(self.path).query).get("form", ["json"])[0]
            if form == "upgrade":
                self.send_response(101)
                self.send_header("Upgrade", "echo")
                self.send_header("Connection", "Upgrade")
                self.end_headers()
                self.wfile.write(got)
                self.close_connection = True
                return
            payload = {"base64": base64.b64encode(got), "urlencoded": quote(got).encode(),
                       "gzip": gzip.compress(got), "gzip-chunked": gzip.compress(got),
                       "large": b"." * (1 << 20) + got + b"." * 1000}.get(form, got)
            self.send_response(200)
            self.send_header("X-Echo-Authorization", authorization)
            if form in ("gzip", "gzip-chunked", "compress"):
                self.send_header("Content-Encoding", form.split("-")[0])
            if form.endswith("chunked"):
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for at in range(0, len(payload), 5):
                    piece = payload[at:at + 5]
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    self.wfile.flush()
                    time.sleep(0.001)
                self.wfile.write(b"0\r\n\r\n")
                return
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if form == "large":  # the proxy reads the first half before the second is sent
                middle = payload.find(authorization.encode()) + len(authorization) // 2
                self.wfile.write(payload[:middle])
                self.wfile.flush()
                time.sleep(0.2)
                payload = payload[middle:]
            self.wfile.write(payload)

        def websocket(self) -> None:
            def echo(whole: str | bytes) -> str | bytes:
                with (folder / "websocket").open("a") as log:
                    log.write(json.dumps([self.headers.get("Host"), self.path, repr(whole)]) + "\n")
                return ("echo: " if isinstance(whole, str) else b"echo: ") + whole

            serve_websocket(self, echo)

        def log_message(self, *args) -> None:
            pass

    contexts = {}
    for name in ("trusted", "untrusted"):
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(folder / f"{name}.pem", folder / f"{name}.key")
        contexts[name] = context

    def by_name(sock: ssl.SSLSocket, server_name: str | None, _) -> None:
        sock.context = contexts["untrusted" if server_name == UNTRUSTED else "trusted"]

    contexts["trusted"].sni_callback = by_name
    for port in (443, 8443):
        server = ThreadingHTTPServer(("0.0.0.0", port), Handler)
        server.socket = contexts["trusted"].wrap_socket(server.socket, server_side=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
    seen.write_text("")
    (folder / "ready").write_text("ready")
    threading.Event().wait()


if __name__ == "__main__":
    serve(Path(sys.argv[1]))
