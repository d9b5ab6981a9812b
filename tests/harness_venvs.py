"""Venvs where a trainer's harness lives: its own package from the registry, detour-client's wheel
beside it, and nothing of the stack. Each is kept for the day under ~/.cache/detour-tests/NAME (a new one when the
requirements change)
(pip takes minutes over a harness's dependencies); the client's wheel is built from client/ and
installed anew each session, as a user's `python -m build` would make it.

One venv a harness: their pins need not agree."""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from tests.e2e.test_cli import Server

REPO = Path(__file__).resolve().parents[1]
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "detour-tests"
# The environment a harness's programs get: none of this venv's or the stack's.
PLAIN = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "DETOUR_HOME")}


def run(argv: list, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in argv], env=env or PLAIN, cwd=cwd, capture_output=True, text=True,
                          timeout=1200)
    assert done.returncode == 0, f"{argv} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def client_wheel(folder: Path) -> Path:
    """detour-client's wheel, built from client/ into `folder`."""
    run([sys.executable, "-m", "build", "--wheel", "--outdir", folder, REPO / "client"], folder)
    [wheel] = folder.glob("detour_client-*.whl")
    return wheel


def harness_venv(name: str, requirements: list[str], wheel: Path | None = None) -> Path:
    """The python of today's venv `name` with `requirements` and `wheel` (pip resolving them together
    when today has none yet; then the wheel alone, anew, its dependencies already there), or
    `requirements` alone (a vendor's SDK whose pins would not fit detour's venv)."""
    cache = CACHE / name
    venv = cache / f"{datetime.date.today()}-{hashlib.sha256(' '.join(requirements).encode()).hexdigest()[:8]}"
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{name}.lock", "w") as lock:  # another session's test may be making it too
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (venv / ".complete").exists():
            shutil.rmtree(cache, ignore_errors=True)  # yesterday's, or one a failure left half made
        cache.mkdir(parents=True, exist_ok=True)
        # venv's and pip's temporary files in the cache, which a new day's venv removes: a pip killed
        # mid-resolution leaves a folder per download (/tmp/pip-unpack-*: 154 after one such run).
        with tempfile.TemporaryDirectory(prefix="tmp-", dir=cache) as scratch:
            env = PLAIN | {"TMPDIR": scratch}
            if not (venv / ".complete").exists():
                run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", venv], CACHE.parent, env)
                run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", *requirements,
                     *([wheel] if wheel else [])], CACHE.parent, env)
                (venv / ".complete").touch()
            if wheel:
                run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall",
                     wheel], CACHE.parent, env)
    return venv / "bin" / "python"


@contextlib.contextmanager
def detour_serve(home: Path) -> Iterator[tuple[str, str]]:
    """A `detour serve` stack for the harnesses to reach over HTTP: its URL and API key."""
    server = Server(home)
    server.start()
    try:
        yield server.platform()
    finally:
        server.stop()
