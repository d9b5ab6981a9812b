"""GitHub rows of `make bench`: Debian's git through the proxy against the GitHub replica. A
repository of 10 MB (incompressible files) pushed, then cloned; a push of 100 small commits;
MB/s and seconds, median, and the proxy's peak resident memory over them."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import httpx

from bench.box import peak_rss_mb
from certs.authority import CertificateAuthority
from detour.stack import Stack
from detour_core.credentials import secret_for
from detour_core.paths import StatePaths
from mock_services.store import EnvironmentStore

SIZE = 10 * 1024 * 1024


def _git(work: Path, env: dict[str, str], *args: str) -> None:
    done = subprocess.run(["git", "-c", "user.name=Bench", "-c", "user.email=bench@example.com", *args], cwd=work,
                          env=env, capture_output=True, text=True, timeout=600)
    if done.returncode:
        raise RuntimeError(f"git {args[0]} failed: {done.stderr.strip()}")


def bench_github_git(state: StatePaths, stack: Stack, store: EnvironmentStore, clones: int = 3) -> None:
    if shutil.which("git") is None:
        print("  GitHub git rows skipped: git is not installed")
        return
    env_id = store.create("github_default").env_id
    token = store.credentials(env_id).tokens["2"]  # John, acme's admin
    proxy = stack.info.access(env_id, secret_for(state, env_id)).url()
    bundle = str(CertificateAuthority(state).ensure().bundle)
    pid = stack.processes["proxy"].pid
    before = peak_rss_mb(pid)
    with httpx.Client(proxy=proxy, verify=bundle, timeout=60) as client:
        for name in ("big", "many"):
            made = client.post("https://api.github.com/orgs/acme/repos", json={"name": name},
                               headers={"Authorization": f"token {token}"})
            assert made.status_code == 201, made.text[:300]
    with tempfile.TemporaryDirectory(prefix="detour-bench-git-") as tmp:
        work = Path(tmp)
        env = {"PATH": os.environ["PATH"], "HOME": tmp, "GIT_TERMINAL_PROMPT": "0", "https_proxy": proxy,
               "GIT_SSL_CAINFO": bundle}
        remote = f"https://x-access-token:{token}@github.com/acme"
        source = work / "big"
        source.mkdir()
        _git(source, env, "init", "-q", "-b", "main")
        for n in range(10):
            (source / f"blob-{n}.bin").write_bytes(os.urandom(SIZE // 10))
        _git(source, env, "add", ".")
        _git(source, env, "commit", "-q", "-m", "10 MB")
        started = time.perf_counter()
        _git(source, env, "push", "-q", f"{remote}/big.git", "main")
        pushed = time.perf_counter() - started
        rates = []
        for n in range(clones):
            started = time.perf_counter()
            _git(work, env, "clone", "-q", f"{remote}/big.git", f"clone-{n}")
            rates.append(SIZE / 1e6 / (time.perf_counter() - started))
        many = work / "many"
        many.mkdir()
        _git(many, env, "init", "-q", "-b", "main")
        for n in range(100):
            (many / "counter.txt").write_text(f"{n}\n")
            _git(many, env, "add", ".")
            _git(many, env, "commit", "-q", "-m", f"commit {n}")
        started = time.perf_counter()
        _git(many, env, "push", "-q", f"{remote}/many.git", "main")
        hundred = time.perf_counter() - started
    print(f"  GitHub git push of a 10 MB repository through the proxy: {SIZE / 1e6 / pushed:6.1f} MB/s")
    print(f"  GitHub git clone of it through the proxy: median {statistics.median(rates):6.1f} MB/s   (n={clones})")
    print(f"  GitHub git push of 100 commits through the proxy: {hundred:6.2f} s")
    print(f"  the proxy's peak RSS: {before:6.1f} MB before, {peak_rss_mb(pid):6.1f} MB after")
