"""Test hosts made of network namespaces: each helper removes what it made, also on failure.

Everything here stays on this machine: namespaces and veths the test creates, with
addresses in 10.214.0.0/16 and fd99::/16 that only those veths carry.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.waiting import until

LAB_VETH = "dtl"  # the lab's veths: dtl + 6 hex digits

REPO = Path(__file__).parents[2]


def sh(*argv: str) -> None:
    subprocess.run(argv, check=True, capture_output=True)


def in_ns(ns: str, *argv: str) -> list[str]:
    return ["ip", "netns", "exec", ns, *argv]


@contextmanager
def namespace(resolver: str | None = None) -> Iterator[str]:
    """A namespace with loopback up; `resolver` becomes its resolv.conf nameserver."""
    name = f"dtest-{uuid.uuid4().hex[:8]}"
    etc = Path("/etc/netns") / name
    sh("ip", "netns", "add", name)
    try:
        sh("ip", "-n", name, "link", "set", "lo", "up")
        if resolver:
            etc.mkdir(parents=True)
            (etc / "resolv.conf").write_text(f"nameserver {resolver}\n")
            (etc / "hosts").write_text("127.0.0.1 localhost\n")
        yield name
    finally:
        shutil.rmtree(etc, ignore_errors=True)
        subprocess.run(["ip", "netns", "del", name], capture_output=True)


@contextmanager
def linked(ns: str, host_ip: str, ns_ip: str, host_ip6: str | None = None, ns_ip6: str | None = None) -> Iterator[str]:
    """A veth from the host into `ns` (/30, optionally /64 for IPv6), default route via the host."""
    veth = f"{LAB_VETH}{uuid.uuid4().hex[:6]}"
    sh("ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
    try:
        sh("ip", "addr", "add", f"{host_ip}/30", "dev", veth)
        sh("ip", "link", "set", veth, "up")
        sh("ip", "-n", ns, "addr", "add", f"{ns_ip}/30", "dev", "eth0")
        sh("ip", "-n", ns, "link", "set", "eth0", "up")
        sh("ip", "-n", ns, "route", "add", "default", "via", host_ip)
        if host_ip6 and ns_ip6:
            sh("ip", "addr", "add", f"{host_ip6}/64", "dev", veth, "nodad")
            sh("ip", "-n", ns, "addr", "add", f"{ns_ip6}/64", "dev", "eth0", "nodad")
            sh("ip", "-n", ns, "-6", "route", "add", "default", "via", host_ip6)
        yield veth
    finally:
        subprocess.run(["ip", "link", "del", veth], capture_output=True)


@contextmanager
def canary(ns: str, log: Path, *args: str) -> Iterator[Path]:
    """tests/e2e/canary.py running inside `ns`, logging to `log`."""
    proc = subprocess.Popen(in_ns(ns, sys.executable, "-m", "tests.e2e.canary", str(log), *args), cwd=REPO)
    try:
        until(lambda: log.exists() and "ready" in log.read_text(), proc, "canary did not start")
        yield log
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def seen(log: Path) -> list[str]:
    return [line for line in log.read_text().splitlines() if line != "ready"]


@contextmanager
def forwarding() -> Iterator[None]:
    """IP forwarding on, as on a machine that routes (the sandbox's rules must hold anyway).

    A running dockerd sets iptables' FORWARD policy to DROP, which would stop the lab's own
    traffic too (and make every "the canary saw nothing" pass for the wrong reason), so the
    lab's veths are let through in DOCKER-USER, the chain Docker leaves to its users. Our
    sandbox tables reject earlier (priority filter - 10), so they still decide."""
    knobs = [Path("/proc/sys/net/ipv4/ip_forward"), Path("/proc/sys/net/ipv6/conf/all/forwarding")]
    before = [k.read_text() for k in knobs]
    docker = shutil.which("iptables") and subprocess.run(["iptables", "-S", "DOCKER-USER"],
                                                          capture_output=True).returncode == 0
    rules = [["-i", f"{LAB_VETH}+", "-j", "ACCEPT"], ["-o", f"{LAB_VETH}+", "-j", "ACCEPT"]]
    try:
        for knob in knobs:
            knob.write_text("1")
        for rule in rules if docker else []:
            sh("iptables", "-I", "DOCKER-USER", *rule)
        yield
    finally:
        for rule in rules if docker else []:
            subprocess.run(["iptables", "-D", "DOCKER-USER", *rule], capture_output=True)
        for knob, value in zip(knobs, before):
            knob.write_text(value)
