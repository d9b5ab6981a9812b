"""Create, load and rotate detour's CA.

The private key stays under the state directory (mode 0600) and in mitmproxy's confdir;
sandboxes only ever get the certificate and a bundle of system roots plus that
certificate. Creation is idempotent: the CA is made on first use and reused after.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import certifi
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from certs import system_trust
from detour_core.paths import StatePaths
from sandbox.base import TrustFiles

SYSTEM_ROOTS = Path("/etc/ssl/certs/ca-certificates.crt")
CA_COMMON_NAME = "detour sandbox CA"
VALIDITY = dt.timedelta(days=3650)
# mitmproxy's CertStore.from_store reads "<basename>-ca.pem" (key + certificate).
MITMPROXY_BASENAME = "mitmproxy"


@dataclass(frozen=True)
class CAPaths:
    """Where each CA artefact lives; the only definition of these paths."""

    state: StatePaths

    @property
    def key(self) -> Path:
        return self.state.ca_dir / "detour-ca.key"

    @property
    def cert(self) -> Path:
        """The public certificate: what NODE_EXTRA_CA_CERTS and DENO_CERT point at."""
        return self.state.ca_dir / "detour-ca.pem"

    @property
    def bundle(self) -> Path:
        """System roots plus detour's CA: for clients that take one file for all trust."""
        return self.state.ca_dir / "bundle.pem"

    @property
    def system_certs(self) -> Path:
        """/etc/ssl/certs as a sandbox sees it, detour's CA added (certs/system_trust.py)."""
        return self.state.ca_dir / "system-certs"

    @property
    def wgetrc(self) -> Path:
        """wget ignores SSL_CERT_FILE; a WGETRC naming the bundle is its only env-level knob."""
        return self.state.ca_dir / "wgetrc"

    @property
    def mitmproxy_ca(self) -> Path:
        return self.state.mitmproxy_confdir / f"{MITMPROXY_BASENAME}-ca.pem"

    @property
    def retired_dir(self) -> Path:
        return self.state.ca_dir / "retired"

    def trust_files(self) -> TrustFiles:
        """The files a sandbox may read (the key is never among them)."""
        return TrustFiles(cert=self.cert, bundle=self.bundle, wgetrc=self.wgetrc, certs=self.system_certs)

    def publish(self, into: TrustFiles) -> None:
        """Copy the certificate and the bundle where containers expect them (a shared volume)."""
        for source, target in ((self.cert, into.cert), (self.bundle, into.bundle)):
            _write_atomically(target, source.read_bytes(), 0o644)


def _write_atomically(path: Path, data: bytes, mode: int) -> None:
    """Write via a unique temporary file, so concurrent writers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.read_bytes() == data and stat.S_IMODE(path.stat().st_mode) == mode:
        return
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _system_roots() -> bytes:
    source = SYSTEM_ROOTS if SYSTEM_ROOTS.exists() else Path(certifi.where())
    return source.read_bytes()


def _generate() -> tuple[bytes, bytes]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, CA_COMMON_NAME),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "detour")])
    now = dt.datetime.now(dt.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + VALIDITY)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                          content_commitment=False, key_encipherment=False,
                          data_encipherment=False, key_agreement=False,
                          encipher_only=False, decipher_only=False),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    return key_pem, cert.public_bytes(serialization.Encoding.PEM)


class CertificateAuthority:
    def __init__(self, state: StatePaths) -> None:
        self.paths = CAPaths(state)

    @contextmanager
    def _lock(self) -> Iterator[None]:
        """Processes that start at once must agree on one key and one certificate."""
        self.paths.state.ca_dir.mkdir(parents=True, exist_ok=True)
        with open(self.paths.state.ca_dir / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def ensure(self) -> CAPaths:
        """Create the CA if it is missing, and (re)derive every file made from it."""
        with self._lock():
            self._create_if_missing()
            self._derive()
        return self.paths

    def rotate(self) -> Path | None:
        """Replace the CA; the old key and certificate move to retired/, never deleted."""
        retired = None
        with self._lock():
            if self.paths.key.exists():
                stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
                retired = self.paths.retired_dir / stamp
                retired.mkdir(parents=True, mode=0o700)
                for path in (self.paths.key, self.paths.cert):
                    if path.exists():
                        shutil.move(path, retired / path.name)
            self._create_if_missing()
            self._derive()
        return retired

    def _create_if_missing(self) -> None:
        if not (self.paths.key.exists() and self.paths.cert.exists()):
            key_pem, cert_pem = _generate()
            _write_atomically(self.paths.key, key_pem, 0o600)
            _write_atomically(self.paths.cert, cert_pem, 0o644)

    def certificate(self) -> x509.Certificate:
        return x509.load_pem_x509_certificate(self.ensure().cert.read_bytes())

    def _derive(self) -> None:
        cert_pem = self.paths.cert.read_bytes()
        key_pem = self.paths.key.read_bytes()
        _write_atomically(self.paths.mitmproxy_ca, key_pem + cert_pem, 0o600)
        _write_atomically(self.paths.bundle, _system_roots().rstrip(b"\n") + b"\n" + cert_pem, 0o644)
        _write_atomically(self.paths.wgetrc, f"ca_certificate = {self.paths.bundle}\n".encode(), 0o644)
        system_trust.build(self.paths.cert, self.paths.bundle, self.paths.system_certs)
