"""What the bench modules share: where agent programs live, the token, the detour command."""

from __future__ import annotations

import atexit
import shutil
import sys
import tempfile
from pathlib import Path

AUTH = {"Authorization": "Bearer xoxb-bench"}
MB = 1024 * 1024
DETOUR = str(Path(sys.executable).parent / "detour")

# Agent programs live outside $DETOUR_HOME: detour refuses to show its state to a sandbox.
PROGRAMS = Path(tempfile.mkdtemp(prefix="detour-bench-programs-"))
atexit.register(shutil.rmtree, PROGRAMS, True)


def program_file(name: str, text: str) -> Path:
    path = PROGRAMS / name
    path.write_text(text)
    return path
