"""A floor under the design #52 named last (TLS termination and HTTP/1.1 parsing for
replica-bound tunnels in compiled code): bench/compiled_front/main.go, built with Go's standard
library, does the carriage alone (CONNECT, TLS with a leaf of detour's CA, HTTP/1.1) and answers a
fixed body. Its CPU per call, beside the prototype's carriage (bench/proxy_lean.py: the same work
in Python on uvloop), says what moving the carriage out of Python could save: what is left of a
call's cost is the replica app, the checks and the record, which stay in Python in any design.

    python -m bench.compiled_front [CALLS]     # its rows alone (bench/proxy_floor.py prints them too)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.proxy_lean import leaf_files
from certs.authority import CertificateAuthority
from detour_core.paths import StatePaths

SOURCE = Path(__file__).parent / "compiled_front"


def build(go: str, target: Path) -> None:
    """The front, from the standard library alone: nothing is fetched (GOPROXY=off)."""
    subprocess.run([go, "build", "-o", str(target), "."], cwd=SOURCE, check=True,
                   env=os.environ | {"GOPROXY": "off", "GOFLAGS": "-mod=mod", "CGO_ENABLED": "0"})


def bench_compiled_front(calls: int = 300) -> None:
    from bench.proxy_floor import ANSWER, free_port, per_call_ms, started, ways  # it prints these rows too
    go = shutil.which("go")
    if go is None:
        print("  floor, a compiled front (Go): not measured, no Go toolchain on this machine")
        return
    with tempfile.TemporaryDirectory(prefix="detour-front-") as tmp:
        folder = Path(tmp)
        build(go, folder / "front")
        state = StatePaths(folder / "home").ensure()
        chain, key = leaf_files(state, folder)
        port = free_port()
        argv = [str(folder / "front"), str(port), str(chain), str(key), ANSWER.decode()]
        with started(argv, port) as process:
            cert = str(CertificateAuthority(state).ensure().cert)
            for label, way in ways(f"http://127.0.0.1:{port}", cert, "https://slack.com/api/auth.test", calls).items():
                (front_ms,) = per_call_ms([process], way, calls)
                print(f"  floor, a compiled front (Go: CONNECT, TLS, HTTP/1.1; a fixed answer), {label:<25}: "
                      f"{front_ms:5.2f} ms (n={calls}; load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    bench_compiled_front(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
