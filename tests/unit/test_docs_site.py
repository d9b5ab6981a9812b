"""The documentation site builds with `mkdocs build --strict`: a broken link, a page missing
from the nav or a docstring mkdocstrings cannot read fails here. Its CLI reference is written
from the CLI at build time, so every command `detour --help` lists is in it."""

import subprocess
import sys
from pathlib import Path

import typer.main

from detour.cli import app

REPO = Path(__file__).resolve().parents[2]


def test_the_site_builds_strictly_and_its_cli_reference_names_every_command(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=REPO, capture_output=True, text=True, timeout=240, env={"NO_MKDOCS_2_WARNING": "1",
                                                                                       "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr[-3000:]
    page = (tmp_path / "site" / "reference" / "cli" / "index.html").read_text()
    group = typer.main.get_command(app)
    ctx = group.context_class(group, info_name="detour")
    for name in group.list_commands(ctx):
        assert f"detour {name}</code>" in page, name
    assert "detour env create</code>" in page and "--request-budget" in page
    assert "detour.client.Client" in (tmp_path / "site" / "reference" / "python" / "index.html").read_text()
