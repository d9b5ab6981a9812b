"""Progress for long work: a rich bar on a terminal; plain step lines (or nothing) where stderr
is not one, and nothing when quiet."""

import os
import pty
import subprocess
import sys

from detour.progress import Steps

SCRIPT = """
from detour.progress import Steps
with Steps("building", total=2) as steps:
    steps.step("the first")
    steps.step("the second")
print("done")
"""


def test_off_a_terminal_steps_are_plain_lines_or_nothing(capsys):
    with Steps("building", total=2) as steps:
        steps.step("the first")
    with Steps("benchmarks", lines=False) as steps:
        steps.step("a section")
    with Steps("quiet", quiet=True) as steps:
        steps.step("nothing")
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", "detour: the first\n")


def test_on_a_terminal_a_progress_bar_draws_on_stderr():
    main, child = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT], stdin=child, stdout=child, stderr=child,
                            env=os.environ | {"TERM": "xterm-256color", "COLUMNS": "100"}, cwd=os.getcwd())
    os.close(child)
    shown = b""
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # the child closed its side
            break
        if not chunk:
            break
        shown += chunk
    os.close(main)
    assert proc.wait(timeout=30) == 0
    text = shown.decode(errors="replace")
    assert "building: the second" in text and "━" in text and "done" in text
    assert "detour: the first" not in text  # the bar, not the lines
