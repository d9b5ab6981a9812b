"""On the process backend, detour's state out of the program's sight: the CA's key, the secret
store, the databases and the audit log all live under $DETOUR_HOME, and the process backend
runs programs as detour's own user.

The program starts in a user, mount and pid namespace of its own (util-linux's `unshare`, no
privilege needed where the kernel lets users make namespaces): an empty tmpfs covers
$DETOUR_HOME, a /proc of its own shows only its own processes (so no /proc/PID/root of the
proxy leads around the tmpfs), and every capability is dropped before the program runs, so it
cannot unmount the tmpfs; /dev/shm is its own too. Started as root, detour runs it under a uid of
its own (sandbox/run_uid.py), so other detour homes on the machine are closed to it too; started
as another user, it runs as that user, who can read that user's other homes. It sees the rest of
the machine and reaches the network as before: this is not isolation, only the state kept out of reach.
Where namespaces cannot be made, the run goes on as before and its result says so.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

from sandbox.base import TrustFiles
from sandbox.run_uid import FIRST_UID

# Runs as root of the new namespaces: cover the state, then drop every capability and run.
COVER_STATE = ('mount -t tmpfs -o size=4k,mode=0755 detour-state "$1" && shift && '
               'mount -t tmpfs -o size=1m,mode=1777 detour-shm /dev/shm')
DROP = "setpriv --bounding-set=-all --inh-caps=-all --no-new-privs"
COVER = f'{COVER_STATE} && exec {DROP} -- "$@"'
NAMESPACES = ["unshare", "--user", "--map-root-user", "--mount", "--propagation", "private",
              "--pid", "--fork", "--mount-proc", "--kill-child", "--"]
# Started as root, no user namespace is needed: the program gets a uid of its own (sandbox/run_uid.py).
ROOT_NAMESPACES = [word for word in NAMESPACES if word not in ("--user", "--map-root-user")]
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
        done = subprocess.run(hiding(["true"], Path("/tmp"), FIRST_UID if os.geteuid() == 0 else None),
                              capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def hiding(argv: list[str], home: Path, uid: int | None = None, reveal: list[str] | None = None) -> list[str]:
    """`argv`, started where `home` is an empty folder; with a uid (detour started as root), as
    that uid, after the `reveal` commands (sandbox/run_uid.py) have made its folders reachable."""
    if uid is None:
        return [*NAMESPACES, "/bin/sh", "-c", COVER, "sh", str(home.resolve()), *argv]
    script = " && ".join([COVER_STATE, *(reveal or []),
                          f'exec setpriv --reuid={uid} --regid={uid} --clear-groups {DROP.removeprefix("setpriv ")} -- "$@"'])
    return [*ROOT_NAMESPACES, "/bin/sh", "-c", script, "sh", str(home.resolve()), *argv]


def trust_copies(trust: TrustFiles, folder: Path) -> TrustFiles:
    """The CA's public files (kept under $DETOUR_HOME) copied where a hidden-state run reads them."""
    copies = TrustFiles(cert=folder / "ca.pem", bundle=folder / "bundle.pem", wgetrc=folder / "wgetrc")
    shutil.copyfile(trust.cert, copies.cert)
    shutil.copyfile(trust.bundle, copies.bundle)
    copies.wgetrc.write_text(f"ca_certificate = {copies.bundle}\n")
    return copies
