"""Box rows of `make bench`: a 10 MB file uploaded and downloaded through the proxy (the upload
host, then the download's 302 to dl.boxcloud.com, both routed to the replica), MB/s median and
p90, and the proxy's peak resident memory over them."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import httpx

from bench.stats import print_transfers
from certs.authority import CertificateAuthority
from detour.stack import Stack
from detour_core.credentials import secret_for
from detour_core.paths import StatePaths
from mock_services.store import EnvironmentStore

SIZE = 10 * 1024 * 1024
AUTH = {"Authorization": "Bearer box.bench"}


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident set since it started (the kernel's VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def bench_box_transfer(state: StatePaths, stack: Stack, store: EnvironmentStore, runs: int = 8) -> None:
    env_id = store.create("box_default").env_id
    proxy = stack.info.access(env_id, secret_for(state, env_id)).url()
    bundle = str(CertificateAuthority(state).ensure().bundle)
    pid = stack.processes["proxy"].pid
    before = peak_rss_mb(pid)
    ups, downs = [], []
    with httpx.Client(proxy=proxy, verify=bundle, timeout=120, follow_redirects=True) as client:
        for n in range(runs):
            content = os.urandom(SIZE)
            attributes = json.dumps({"name": f"bench-{n}.bin", "parent": {"id": "0"}})
            started = time.perf_counter()
            made = client.post("https://upload.box.com/api/2.0/files/content", headers=AUTH,
                               files={"attributes": (None, attributes), "file": (f"bench-{n}.bin", content)})
            ups.append(SIZE / 1e6 / (time.perf_counter() - started))
            assert made.status_code == 201, made.text[:300]
            file_id = made.json()["entries"][0]["id"]
            started = time.perf_counter()
            got = client.get(f"https://api.box.com/2.0/files/{file_id}/content", headers=AUTH)
            downs.append(SIZE / 1e6 / (time.perf_counter() - started))
            assert got.content == content
    print_transfers("Box", ups, downs)
    print(f"  the proxy's peak RSS: {before:6.1f} MB before, {peak_rss_mb(pid):6.1f} MB after")
