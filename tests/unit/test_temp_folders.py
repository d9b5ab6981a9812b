"""Temporary folders that name their maker (sandbox/temp_folders.py): only those whose maker is
proved gone are removed."""

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import psutil

from sandbox import temp_folders

# A detour process that has started the warm interpreter's server and says where it is.
WARM_MAKER = """
import os, sys, time
from pathlib import Path
from sandbox.warm import ForkServer
server = ForkServer(Path(sys.executable), os.environ["PATH"])
assert server.available()
print(server.proc.pid, server.socket.parent, flush=True)
time.sleep(120)
"""


def made(where: Path, pid: int, kind: str = "run") -> Path:
    folder = where / f"detour-{kind}-{pid}-x1"
    folder.mkdir()
    (folder / "work").mkdir()
    return folder


def test_a_folder_is_removed_only_when_its_maker_is_proved_gone(tmp_path):
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    zombie = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        os.waitid(os.P_PID, zombie.pid, os.WEXITED | os.WNOWAIT)  # exited, not reaped
        live = made(tmp_path, sleeper.pid)
        reused = made(tmp_path, sleeper.pid, "code")
        os.utime(reused, (0, 0))  # changed last before the pid's process started: another maker's
        dead, undead = made(tmp_path, ended.pid), made(tmp_path, zombie.pid)
        own = made(tmp_path, os.getpid(), "code")
        foreign = tmp_path / "detour-run-abcdef12"  # not named by a maker: never proved gone
        foreign.mkdir()
        assert temp_folders.remove_dead(tmp_path) == sorted([reused, dead, undead])
        assert sorted(tmp_path.iterdir()) == sorted([live, own, foreign])
    finally:
        sleeper.kill()
        sleeper.wait()
        zombie.wait()


def test_a_folder_made_by_this_process_is_named_by_it():
    with tempfile.TemporaryDirectory(prefix=temp_folders.prefix("code")) as folder:
        named = temp_folders.NAMED.fullmatch(Path(folder).name)
        assert named and int(named[1]) == os.getpid()
        assert Path(folder) not in temp_folders.dead_folders()


def test_the_warm_interpreters_folder_left_by_a_kill_is_its_makers_and_removed():
    """SIGKILL runs no clean-up: the server killed, then the process that started it, leave the
    server's socket folder, which names that process and so goes as any folder of a dead maker.
    (A short temporary folder, not pytest's: a socket's path holds at most 107 bytes.)"""
    with tempfile.TemporaryDirectory(prefix="detour-t-") as where:
        maker = subprocess.Popen([sys.executable, "-c", WARM_MAKER], stdout=subprocess.PIPE, text=True,
                                 env=os.environ | {"TMPDIR": where, "DETOUR_WARM_PYTHON": "wait"})
        server = None
        try:
            pid, folder = maker.stdout.readline().split()
            server = psutil.Process(int(pid))
            server.send_signal(signal.SIGKILL)
            maker.kill()
            maker.wait()
            server.wait(30)
            assert (Path(folder) / "server.sock").exists()  # nothing of theirs removed it
            assert temp_folders.remove_dead(Path(where)) == [Path(folder)]
            assert list(Path(where).iterdir()) == []
        finally:
            maker.kill()
            maker.wait()
            if server is not None and server.is_running():
                server.kill()
