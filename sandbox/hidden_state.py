"""On the process backend, detour's state out of the program's sight: the CA's key, the secret
store, the databases and the audit log all live under $DETOUR_HOME, and the process backend
runs programs as detour's own user.

The program starts in a user, mount and pid namespace of its own (util-linux's `unshare`, no
privilege needed where the kernel lets users make namespaces): an empty tmpfs covers
$DETOUR_HOME, a /proc of its own shows only its own processes (so no /proc/PID/root of the
proxy leads around the tmpfs), and every capability is dropped before the program runs, so it
cannot unmount the tmpfs; /dev/shm is its own too. It still runs as detour's user, sees the rest of the machine and
reaches the network as before: this is not isolation, only the state kept out of reach.
Where namespaces cannot be made, the run goes on as before and its result says so.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from pathlib import Path

from sandbox.base import TrustFiles

# Runs as root of the new user namespace: cover the state, then drop every capability and run.
COVER = ('mount -t tmpfs -o size=4k,mode=0755 detour-state "$1" && shift && '
         'mount -t tmpfs -o size=1m,mode=1777 detour-shm /dev/shm && '
         'exec setpriv --bounding-set=-all --inh-caps=-all --no-new-privs -- "$@"')
NAMESPACES = ["unshare", "--user", "--map-root-user", "--mount", "--propagation", "private",
              "--pid", "--fork", "--mount-proc", "--kill-child", "--"]
UNHIDDEN = ("detour: warning: this machine cannot make the namespaces that hide detour's state on the process "
            "backend, so this program could read $DETOUR_HOME (the CA's key, secrets, databases): use "
            "--backend namespace or docker for code you do not trust")


@functools.cache
def can_hide() -> bool:
    """Whether namespaces can be made here: tried once per process (the tmpfs it makes over /tmp
    is its own namespace's, gone with it)."""
    if not (shutil.which("unshare") and shutil.which("setpriv")):
        return False
    try:
        done = subprocess.run([*NAMESPACES, "/bin/sh", "-c", COVER, "sh", "/tmp", "true"],
                              capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def hiding(argv: list[str], home: Path) -> list[str]:
    """`argv`, started where `home` is an empty folder."""
    return [*NAMESPACES, "/bin/sh", "-c", COVER, "sh", str(home.resolve()), *argv]


def trust_copies(trust: TrustFiles, folder: Path) -> TrustFiles:
    """The CA's public files (kept under $DETOUR_HOME) copied where a hidden-state run reads them."""
    copies = TrustFiles(cert=folder / "ca.pem", bundle=folder / "bundle.pem", wgetrc=folder / "wgetrc")
    shutil.copyfile(trust.cert, copies.cert)
    shutil.copyfile(trust.bundle, copies.bundle)
    copies.wgetrc.write_text(f"ca_certificate = {copies.bundle}\n")
    return copies
