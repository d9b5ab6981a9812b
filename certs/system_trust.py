"""The machine's trust store as a sandbox sees it: a copy of /etc/ssl/certs's layout with
detour's CA added, which the namespace and docker backends show in place of the real one, so
clients that read only the system store (Debian's git through GnuTLS, Java, Go, Ruby, PHP's
curl, Rust's native roots) trust detour's CA with no variable at all. The host's files stay
as they are.

    certs/ca-certificates.crt   the system roots plus detour's CA (the bundle)
    certs/detour-ca.pem         detour's CA, and its subject-hash link for OpenSSL's folder lookup
    certs/java/cacerts          a Java trust store (PKCS#12) of the same certificates
    certs/<everything else>     the host's entries, links kept as links
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives.serialization import NoEncryption, pkcs12

from sandbox.base import SYSTEM_CERTS

BUNDLE_NAME = "ca-certificates.crt"
CA_NAME = "detour-ca.pem"
JAVA_STORE = Path("java") / "cacerts"
STAMP = ".detour-bundle-sha256"


def build(cert: Path, bundle: Path, into: Path) -> None:
    """(Re)make `into` from the bundle, unless it was made from this very bundle."""
    digest = hashlib.sha256(bundle.read_bytes()).hexdigest()
    if (into / STAMP).is_file() and (into / STAMP).read_text() == digest:
        return
    into.parent.mkdir(parents=True, exist_ok=True)
    making = Path(tempfile.mkdtemp(dir=into.parent, prefix=f".{into.name}."))
    try:
        _copy_layout(making)
        shutil.copyfile(bundle, making / BUNDLE_NAME)
        shutil.copyfile(cert, making / CA_NAME)
        _hash_link(making / CA_NAME)
        (making / JAVA_STORE).parent.mkdir(exist_ok=True)
        (making / JAVA_STORE).write_bytes(java_trust_store(bundle.read_bytes()))
        (making / STAMP).write_text(digest)
        for path in (making, making / JAVA_STORE.parent):
            path.chmod(0o755)
        if into.exists():
            shutil.rmtree(into)
        making.replace(into)
    finally:
        shutil.rmtree(making, ignore_errors=True)


def _copy_layout(folder: Path) -> None:
    """The host's entries: links as links (their targets are visible in a sandbox too), files copied."""
    if not SYSTEM_CERTS.is_dir():
        return
    for entry in os.scandir(SYSTEM_CERTS):
        target = folder / entry.name
        if entry.name in (BUNDLE_NAME, JAVA_STORE.parts[0]):
            continue
        if entry.is_symlink():
            target.symlink_to(os.readlink(entry.path))
        elif entry.is_file():
            shutil.copyfile(entry.path, target)


def _hash_link(pem: Path) -> None:
    """OpenSSL finds a CA in a folder by the hash of its subject: `openssl` computes it."""
    if shutil.which("openssl") is None:
        return
    done = subprocess.run(["openssl", "x509", "-subject_hash", "-noout", "-in", str(pem)],
                          capture_output=True, text=True)
    if done.returncode == 0 and done.stdout.strip():
        n = 0
        while (pem.parent / f"{done.stdout.strip()}.{n}").exists(follow_symlinks=False):
            n += 1
        (pem.parent / f"{done.stdout.strip()}.{n}").symlink_to(pem.name)


def java_trust_store(bundle: bytes) -> bytes:
    """Every certificate of the bundle as a trusted entry of a password-less PKCS#12 store
    (Java 9 and later read it as their default store type)."""
    with warnings.catch_warnings():  # a root or two of the system's has a serial RFC 5280 disallows
        warnings.simplefilter("ignore")
        certificates = x509.load_pem_x509_certificates(bundle)
    entries = [pkcs12.PKCS12Certificate(c, f"cert-{n}".encode()) for n, c in enumerate(certificates)]
    return pkcs12.serialize_java_truststore(entries, NoEncryption())
