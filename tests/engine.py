"""A Docker engine for one test session, so that `make test` runs the docker tests on a fresh
machine: the engine that answers, else one started here (as root, on a data root of its own
where images persist between sessions) and stopped when the tests end. detour's images are
built, or refreshed from the current code, before the tests start. What the started engine
made on the host (its iptables tables, its `docker0` bridge) goes with it.

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

from sandbox.netns import TABLE_PREFIX

SANDBOX_LINK_PREFIX = "dt"  # sandbox veths (sandbox/netns.py's SandboxNetwork.host_veth)

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


def host_network() -> tuple[set[str], set[str]]:
    """The host's nftables tables ("family name") and network links, to see what an engine adds."""
    listed = subprocess.run(["nft", "list", "tables"], capture_output=True, text=True).stdout if shutil.which("nft") else ""
    tables = {line.removeprefix("table ").strip() for line in listed.splitlines() if line.startswith("table ")}
    return tables, {link.name for link in Path("/sys/class/net").iterdir()}


def remove_added(before: tuple[set[str], set[str]]) -> None:
    """The tables and links that appeared since `before` (the stopped engine's), leaving any
    sandbox's (another session's runs clean up their own)."""
    tables, links = host_network()
    for table in sorted(tables - before[0]):
        if not table.split()[-1].startswith(TABLE_PREFIX):
            subprocess.run(["nft", "delete", "table", *table.split()], capture_output=True)
    for link in sorted(links - before[1]):
        if not link.startswith(SANDBOX_LINK_PREFIX):
            subprocess.run(["ip", "link", "delete", link], capture_output=True)


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
    before = host_network()
    engine = start()
    try:
        if answers() and subprocess.run([DETOUR, "images", "build"]).returncode != 0:
            say("`detour images build` failed: docker tests will fail or skip")
        return subprocess.call(command)
    finally:
        if engine:
            stop(engine)
            remove_added(before)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
