"""The docker backend's entrypoint: wait for detour's network, unpack the run's files, exec.

The container starts with no network at all; detour moves a veth into it and adds the
default route last, so the program never runs before its only way out is in place. The
run arrives first on stdin, as two length-prefixed frames: its command and variables (JSON),
then its files (the program) as a tar, so nothing of the host is mounted and a container
made ahead (a pool's) learns only then whose run it is; the rest of stdin is the program's own.
"""

import io
import json
import os
import sys
import tarfile
import time

MAGIC = b"DETOUR1 "
LENGTH_DIGITS = 12
NETWORK_TIMEOUT_S = 30.0


def has_default_route() -> bool:
    with open("/proc/net/route") as table:
        return any(line.split()[1] == "00000000" for line in table.readlines()[1:])


def wait_for_network() -> None:
    deadline = time.monotonic() + NETWORK_TIMEOUT_S
    while not has_default_route():
        if time.monotonic() > deadline:
            sys.exit("detour: the sandbox network never came up")
        time.sleep(0.002)


def read_exactly(size: int) -> bytes:
    """From fd 0 itself: a buffered reader would swallow the program's stdin."""
    chunks, left = [], size
    while left:
        chunk = os.read(0, left)
        if not chunk:
            sys.exit("detour: the run's files were cut short")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_frame() -> bytes:
    try:
        if read_exactly(len(MAGIC)) != MAGIC:
            raise ValueError
        size = int(read_exactly(LENGTH_DIGITS))
    except (ValueError, SystemExit):
        sys.exit("detour: this entrypoint is for the docker backend (no payload on stdin)")
    return read_exactly(size)


def read_run():
    """The command and the variables of the run."""
    try:
        run = json.loads(read_frame())
        argv, env = run["argv"], run["env"]
    except (ValueError, KeyError, TypeError):
        sys.exit("detour: the run's command did not arrive")
    if not argv or not all(isinstance(a, str) for a in argv) or not isinstance(env, dict):
        sys.exit("detour: the run's command did not arrive")
    return argv, {str(k): str(v) for k, v in env.items()}


def unpack_files() -> None:
    payload = read_frame()
    with tarfile.open(fileobj=io.BytesIO(payload)) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(os.getcwd(), filter="data")
        else:  # a Python without extraction filters (before 3.12 and its backports: Debian 12's 3.11.2)
            tar.extractall(os.getcwd(), members=plain_files(tar))


def plain_files(tar: tarfile.TarFile) -> list:
    """What the host sends is regular files at relative paths; anything else is refused."""
    members = tar.getmembers()
    for member in members:
        parts = member.name.split("/")
        if not member.isfile() or member.name.startswith("/") or ".." in parts:
            sys.exit(f"detour: refusing {member.name!r} in the run's files")
    return members


def frame(payload: bytes) -> bytes:
    """What the host sends first on stdin (sandbox/docker.py)."""
    return MAGIC + str(len(payload)).zfill(LENGTH_DIGITS).encode() + payload


def main() -> None:
    argv, env = read_run()
    unpack_files()
    wait_for_network()
    os.execvpe(argv[0], argv, env)


if __name__ == "__main__":
    main()
