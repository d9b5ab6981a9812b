"""A real host, as far as detour can tell: HTTPS on :443 inside a lab namespace, for the
names a test allows, with certificates from a CA the test makes (and one it does not trust).

    python -m tests.e2e.upstream FOLDER    # FOLDER: ca.pem, trusted.pem/key, untrusted.pem/key; logs to FOLDER/seen
                                           # and each request's Authorization to FOLDER/authorizations
"""

from __future__ import annotations

import datetime
import json
import ssl
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

TRUSTED = ("api.partner.test", "eu.models.test")
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


def make_certificates(folder: Path) -> Path:
    """ca.pem (the test's CA), a leaf for TRUSTED signed by it, and a self-signed one for UNTRUSTED."""
    def save(name: str, cert: x509.Certificate, key) -> None:
        (folder / f"{name}.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        (folder / f"{name}.key").write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                                                serialization.PrivateFormat.PKCS8,
                                                                serialization.NoEncryption()))
    ca_key, leaf_key, other_key = (ec.generate_private_key(ec.SECP256R1()) for _ in range(3))
    save("ca", _certificate("detour test CA", (), ca_key, "detour test CA", ca_key, True), ca_key)
    save("trusted", _certificate(TRUSTED[0], TRUSTED, ca_key, "detour test CA", leaf_key, False), leaf_key)
    save("untrusted", _certificate(UNTRUSTED, (UNTRUSTED,), other_key, UNTRUSTED, other_key, False), other_key)
    return folder / "ca.pem"


def serve(folder: Path) -> None:
    seen = folder / "seen"

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
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
            with (folder / "uploads").open("a") as log:
                log.write(json.dumps([self.headers.get("Host"), self.path, self.headers.get("Authorization"),
                                      len(body), body[:80].decode("latin-1"), body[-80:].decode("latin-1")]) + "\n")
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

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
