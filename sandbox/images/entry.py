"""The docker backend's entrypoint: wait for detour's network, unpack the run's files, exec.

The container starts with no network at all; detour moves a veth into it and adds the
default route last, so the program never runs before its only way out is in place. The
run's files (the program) arrive first on stdin as a length-prefixed tar, so nothing of
the host is mounted; the rest of stdin is the program's own.
"""

import io
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


def unpack_files() -> None:
    try:
        if read_exactly(len(MAGIC)) != MAGIC:
            raise ValueError
        size = int(read_exactly(LENGTH_DIGITS))
    except (ValueError, SystemExit):
        sys.exit("detour: this entrypoint is for the docker backend (no payload on stdin)")
    payload = read_exactly(size)
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
    unpack_files()
    wait_for_network()
    os.execvp(sys.argv[1], sys.argv[1:])


if __name__ == "__main__":
    main()
