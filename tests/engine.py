"""A Docker engine for one test session, so that `make test` runs the docker tests on a fresh
machine: the engine that answers, else one started here (as root, on a data root of its own
where images persist between sessions) and stopped when the tests end. detour's images are
built, or refreshed from the current code, before the tests start.

Usage: python -m tests.engine COMMAND...  (the Makefile's `test` target)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import docker
import docker.errors

DATA_ROOT = Path("/var/lib/detour-test-docker")
PIDFILE = Path("/run/detour-test-dockerd.pid")
LOG = Path("/tmp/detour-test-dockerd.log")
DETOUR = str(Path(sys.executable).parent / "detour")


def say(message: str) -> None:
    print(f"tests.engine: {message}", file=sys.stderr, flush=True)


def answers() -> bool:
    try:
        client = docker.from_env(timeout=5)
        client.ping()
        client.close()
        return True
    except docker.errors.DockerException:
        return False


def start() -> subprocess.Popen | None:
    """A dockerd of this session's own, or None when one answers already or none can start."""
    if answers():
        return None
    if os.geteuid() != 0 or shutil.which("dockerd") is None:
        say("no Docker engine answers and none can start here (needs root and dockerd): docker tests will skip")
        return None
    with LOG.open("w") as log:
        engine = subprocess.Popen(["dockerd", "--data-root", str(DATA_ROOT), "--pidfile", str(PIDFILE)],
                                  stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while not answers():
        if engine.poll() is not None or time.monotonic() > deadline:
            stop(engine)
            say(f"dockerd did not come up; its log: {LOG}")
            return None
        time.sleep(0.5)
    say(f"started dockerd (data root {DATA_ROOT}) for this session")
    return engine


def stop(engine: subprocess.Popen) -> None:
    engine.terminate()
    try:
        engine.wait(30)
    except subprocess.TimeoutExpired:
        engine.kill()
        engine.wait()


def main(command: list[str]) -> int:
    if not command:
        sys.exit("usage: python -m tests.engine COMMAND...")
    engine = start()
    try:
        if answers() and subprocess.run([DETOUR, "images", "build"]).returncode != 0:
            say("`detour images build` failed: docker tests will fail or skip")
        return subprocess.call(command)
    finally:
        if engine:
            stop(engine)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
