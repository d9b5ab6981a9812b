"""`detour doctor`: on a machine without a Docker engine, one line that says so and what to do,
not the client library's exception; the temporary folders of detours that are gone."""

import subprocess
import sys
import tempfile
from pathlib import Path

from detour.cli.doctor import docker_leftovers, temp_leftovers


def test_a_missing_docker_engine_is_one_line_with_a_remedy(monkeypatch, capsys):
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    assert docker_leftovers(fix=False) == []
    [line] = capsys.readouterr().out.splitlines()
    assert line.startswith("docker backend: unavailable: no Docker engine answers at unix:///nonexistent/docker.sock")
    assert "start dockerd" in line and "DOCKER_HOST" in line
    assert "Error" not in line and "FileNotFoundError" not in line


def test_the_folders_a_killed_detour_left_are_listed_and_removed(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    left = tmp_path / f"detour-run-{gone.stdout.strip()}-abc"
    left.mkdir()
    with tempfile.TemporaryDirectory(prefix="detour-code-1-") as live_name:  # pid 1 lives: its folder stays
        assert temp_leftovers(fix=False) == [str(left)] and left.exists()
        assert temp_leftovers(fix=True) == [str(left)] and not left.exists() and Path(live_name).exists()
    assert capsys.readouterr().out.splitlines() == [
        f"left over: folder {left} (the detour that made it is gone)", f"removed: folder {left} (the detour that made it is gone)"]
