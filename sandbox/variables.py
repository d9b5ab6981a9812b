"""The environment variables a sandbox receives: built from empty, never from the host's.

This is the one list of what each runtime needs to use detour's proxy and trust its CA
(see the lab report: curl, wget, requests, httpx, urllib, aiohttp, Node and Deno each
read a different variable).
"""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from detour_core.registry import CREDENTIALS_HEADER, ORIGINAL_HOST_HEADER, rewrite_table
from sandbox.base import ProxyAccess, SandboxSpec, TrustFiles
from sandbox.runtimes import Runtime

# Debian's libfaketime (`detour doctor --install`), the same path in detour's sandbox image.
FAKETIME_LIBRARY = next(Path("/usr/lib").glob("*/faketime/libfaketime.so.1"), None)


def proxy_variables(proxy_url: str) -> dict[str, str]:
    """Both cases: curl and wget read only lowercase http_proxy, others prefer uppercase."""
    names = ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")
    return {name: proxy_url for name in names} | {"NODE_USE_ENV_PROXY": "1"}


def ca_variables(trust: TrustFiles) -> dict[str, str]:
    """Detour's CA alone where a client takes the file as its whole trust: every certificate a
    sandbox meets is one the proxy signed. The bundle (145 system roots beside it) cost a client
    ~22 ms of CPU each time it read it, which urllib does per connection, requests and httpx per
    pool or client: the largest part of a call a sandbox made on a new connection (#52)."""
    cert = str(trust.cert)
    return {
        "SSL_CERT_FILE": cert,            # OpenSSL: urllib, httpx, aiohttp, curl
        "REQUESTS_CA_BUNDLE": cert,       # requests (certifi otherwise)
        "CURL_CA_BUNDLE": cert,           # curl, and shadows SSL_CERT_FILE for it
        "HTTPLIB2_CA_CERTS": cert,        # httplib2 (google-api-python-client) reads only its own
        "NODE_EXTRA_CA_CERTS": cert,      # Node adds this to its own roots
        "DENO_CERT": cert,
        "WGETRC": str(trust.wgetrc),      # wget (GnuTLS) ignores SSL_CERT_FILE
        "GIT_SSL_CAINFO": cert,           # git (Debian's: libcurl over GnuTLS) reads only the system store
    }


def clock_variables(spec: SandboxSpec) -> dict[str, str]:
    """libfaketime's: programs' clocks start at the environment's time and run on. They always
    run, even when the environment's clock stands still: a stopped clock stops every timer and
    event loop in the program (libfaketime fakes the monotonic clock too, and must, or sleeping
    fails). Programs that read the time without libc (Go's) keep the real time. libfaketime keeps
    its start time in /dev/shm, so each backend gives the program a /dev/shm of its own and these
    variables to the program alone (not to the tools that start it as another user)."""
    if spec.clock_at is None or FAKETIME_LIBRARY is None:
        return {}
    stamp = datetime.fromtimestamp(spec.clock_at).strftime("%Y-%m-%d %H:%M:%S")  # libfaketime reads local time
    return {"LD_PRELOAD": str(FAKETIME_LIBRARY), "FAKETIME": f"@{stamp}", "FAKETIME_DONT_RESET": "1"}


def clock_command(spec: SandboxSpec) -> list[str]:
    """The words before a program that give it (and it alone) the environment's time: the
    tools that start it (unshare, setpriv) would otherwise make libfaketime's /dev/shm files
    where the host keeps them."""
    variables = clock_variables(spec)
    return ["/usr/bin/env", *(f"{k}={v}" for k, v in variables.items())] if variables else []


def workdir_variables(workdir: Path) -> dict[str, str]:
    """Set by the backend, which owns the work directory."""
    return {"HOME": str(workdir), "TMPDIR": str(workdir / ".tmp")}


def rewrite_variables(access: ProxyAccess, gateway: str, runtime: Runtime) -> dict[str, str]:
    """Rewrite mode (AgentDiff's executors, done better): preludes that send the mapped
    hosts' URLs to the gateway, for Python (sitecustomize), Node (--import) and curl/wget
    (shims first on PATH). The preludes hold no facts: these variables carry them."""
    return {
        "PYTHONPATH": str(runtime.preludes / "python"),
        "NODE_OPTIONS": f"--import {(runtime.preludes / 'node' / 'prelude.mjs').as_uri()}",
        "PATH": f"{runtime.preludes / 'bin'}{os.pathsep}{runtime.path}",
        "DETOUR_REWRITE_BASE": f"{gateway}/api/env/{access.env_id}/services",
        "DETOUR_REWRITE_HOSTS": rewrite_table(),
        "DETOUR_REWRITE_HEADERS": f"{CREDENTIALS_HEADER}: {access.env_id}:{access.secret}",
        "DETOUR_ORIGINAL_HOST_HEADER": ORIGINAL_HOST_HEADER,
    }


def sandbox_environment(spec: SandboxSpec, trust: TrustFiles, runtime: Runtime,
                        proxy_host: str | None = None) -> dict[str, str]:
    """Everything a sandboxed program sees but its work directory. SSL_CERT_DIR is absent.

    `proxy_host` is where the stack's listeners appear from inside the sandbox; `trust` is
    where the CA files appear there; `runtime` is where its interpreters are."""
    env = {
        "PATH": runtime.path,
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        **ca_variables(trust),
    }
    if spec.proxy and spec.mode == "proxy":
        env |= proxy_variables(spec.proxy.url(proxy_host))
    elif spec.proxy:
        env |= rewrite_variables(spec.proxy, spec.proxy.gateway(proxy_host), runtime)
    return env | spec.credentials | spec.placeholders | spec.task
