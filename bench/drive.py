"""Drive rows of `make bench`: a 10 MB file uploaded (multipart/related, as Google's clients
send it) and downloaded (`alt=media`) through the proxy, MB/s median and p90, and the proxy's
peak resident memory over them."""

from __future__ import annotations

import json
import os
import time

import httpx

from bench.box import SIZE, peak_rss_mb
from bench.stats import print_transfers
from certs.authority import CertificateAuthority
from detour.stack import Stack
from detour_core.credentials import secret_for
from detour_core.paths import StatePaths
from mock_services.store import EnvironmentStore

AUTH = {"Authorization": "Bearer ya29.bench"}
BASE = "https://www.googleapis.com"


def related(name: str, content: bytes) -> tuple[bytes, dict[str, str]]:
    metadata = json.dumps({"name": name}).encode()
    body = (b"--bench\r\nContent-Type: application/json\r\n\r\n" + metadata +
            b"\r\n--bench\r\nContent-Type: application/octet-stream\r\n\r\n" + content + b"\r\n--bench--")
    return body, {**AUTH, "Content-Type": "multipart/related; boundary=bench"}


def bench_drive_transfer(state: StatePaths, stack: Stack, store: EnvironmentStore, runs: int = 8) -> None:
    env_id = store.create("drive_default").env_id
    proxy = stack.info.access(env_id, secret_for(state, env_id)).url()
    bundle = str(CertificateAuthority(state).ensure().bundle)
    pid = stack.processes["proxy"].pid
    before = peak_rss_mb(pid)
    ups, downs = [], []
    with httpx.Client(proxy=proxy, verify=bundle, timeout=120) as client:
        for n in range(runs):
            content = os.urandom(SIZE)
            body, headers = related(f"bench-{n}.bin", content)
            started = time.perf_counter()
            made = client.post(f"{BASE}/upload/drive/v3/files?uploadType=multipart", content=body, headers=headers)
            ups.append(SIZE / 1e6 / (time.perf_counter() - started))
            assert made.status_code == 200, made.text[:300]
            started = time.perf_counter()
            got = client.get(f"{BASE}/drive/v3/files/{made.json()['id']}?alt=media", headers=AUTH)
            downs.append(SIZE / 1e6 / (time.perf_counter() - started))
            assert got.content == content
    print_transfers("Drive", ups, downs)
    print(f"  the proxy's peak RSS: {before:6.1f} MB before, {peak_rss_mb(pid):6.1f} MB after")
