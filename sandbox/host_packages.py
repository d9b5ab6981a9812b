"""What the host needs that pip cannot install, which Debian package gives it, and who needs it.

The one table behind `detour doctor`, `make`'s provisioning and each backend's check of
whether it can run here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from detour_core.errors import DetourError


@dataclass(frozen=True)
class Need:
    probe: str      # a command on PATH, or an absolute path that must exist
    package: str    # the Debian package that provides it
    used_by: str    # which part of detour (or its tests) needs it

    def met(self) -> bool:
        if self.probe.startswith("/"):
            return any(Path("/").glob(self.probe[1:])) if "*" in self.probe else Path(self.probe).exists()
        return shutil.which(self.probe) is not None


NAMESPACE = "namespace backend"
DOCKER = "docker backend"
LANGUAGE = "agents in other languages (and their tests)"
# The languages detour runs beside Python, Node, Bash and Perl: Debian's own runtimes.
LANGUAGES = (
    Need("java", "default-jdk-headless", LANGUAGE),
    Need("go", "golang-go", LANGUAGE),
    Need("ruby", "ruby", LANGUAGE),
    Need("php", "php-cli", LANGUAGE),
    Need("/etc/php/*/mods-available/curl.ini", "php-curl", LANGUAGE),
    Need("git", "git", LANGUAGE),
)
NEEDS = (
    Need("npm", "npm", "make (detour's Node packages)"),
    Need("ip", "iproute2", NAMESPACE),
    Need("nft", "nftables", NAMESPACE),
    Need("bwrap", "bubblewrap", NAMESPACE),
    Need("nsenter", "util-linux", NAMESPACE),
    Need("setpriv", "util-linux", NAMESPACE),
    Need("dockerd", "docker.io", DOCKER),
    Need("iptables", "iptables", DOCKER),          # dockerd sets up its bridge with it
    Need("debootstrap", "debootstrap", "detour images build (no registry)"),
    Need("docker-compose", "docker-compose", "compose.yaml"),
    Need("curl", "curl", "agents' shell tools"),
    Need("wget", "wget", "agents' shell tools"),
    Need("ping", "iputils-ping", "agents' shell tools"),
    Need("/usr/share/perl5/IO/Socket/SSL.pm", "libio-socket-ssl-perl", "Perl agents over HTTPS"),
    Need("/etc/ssl/certs/ca-certificates.crt", "ca-certificates", "the sandbox's CA bundle"),
    Need("chromium", "chromium", "the live view's browser test"),
    Need("/usr/bin/pg_ctlcluster", "postgresql", "the Postgres store's tests (a server of their own)"),
    Need("chromedriver", "chromium-driver", "the live view's browser test"),
    Need("/usr/lib/*/faketime/libfaketime.so.1", "libfaketime", "the sandbox's clock (an environment's own time)"),
    Need("gh", "gh", "GitHub's CLI in agents (and its tests)"),
    *LANGUAGES,
)


class ProvisionError(DetourError):
    pass


def missing(used_by: str | None = None) -> list[Need]:
    return [need for need in NEEDS if (used_by is None or need.used_by == used_by) and not need.met()]


def apt_command(needs: list[Need]) -> list[str]:
    packages = sorted({need.package for need in needs})
    return ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages]


def install(needs: list[Need]) -> None:
    """With apt, as root; what apt prints goes to the terminal."""
    if os.geteuid() != 0:
        raise ProvisionError(f"installing needs root: sudo {' '.join(apt_command(needs))}")
    if shutil.which("apt-get") is None:
        raise ProvisionError(f"no apt-get here: install {', '.join(sorted({n.package for n in needs}))} "
                             "with this system's package manager")
    env = os.environ | {"DEBIAN_FRONTEND": "noninteractive"}
    for argv in (["apt-get", "update", "-qq"], apt_command(needs)):
        if subprocess.run(argv, env=env).returncode != 0:
            raise ProvisionError(f"`{' '.join(argv)}` failed")
