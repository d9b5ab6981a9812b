"""What a `detour` command imports before it does its work: a command that runs nothing loads
neither the CA's cryptography, nor the HTTP client, nor the proxy, nor the sandbox backends.
Every command module is imported for any command (typer builds the whole tree), so each must
import at its top only what its commands' signatures name (detour/cli/common.py). Checked on
the import graph, in a fresh interpreter per command, not on a clock."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# A user's command pays for these only when it needs them (a run, the CA, a stack's start, a suite).
HEAVY = ("cryptography", "OpenSSL", "certs", "httpx", "detour_client", "mitmproxy", "docker", "psutil",
         "sandbox.namespace", "sandbox.process", "mock_services.assertions", "detour.suite", "detour.proxy_user")
# The modules each command may not import: a client's command (the store's reader) needs psutil alone
# of them (a client sweeps dead runs' temporary folders), and still no CA, HTTP client or proxy.
AVOIDS = {
    ("--help",): HEAVY,
    ("--version",): HEAVY,
    ("stack", "status"): HEAVY,
    ("env", "list"): tuple(name for name in HEAVY if name != "psutil"),
}


def command_imports(args: tuple[str, ...], home: Path, out: Path) -> tuple[set[str], subprocess.CompletedProcess]:
    """The modules loaded once `detour ARGS` has run, in an interpreter of its own."""
    code = (f"import json, sys\nfrom detour.console import main\nsys.argv = ['detour', *{list(args)!r}]\n"
            f"try:\n    main()\nexcept SystemExit:\n    pass\n"
            f"open({str(out)!r}, 'w').write(json.dumps(sorted(sys.modules)))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=out.parent,
                          env=os.environ | {"DETOUR_HOME": str(home), "DETOUR_BACKGROUND": "off"})
    return set(json.loads(out.read_text())), proc


def loaded(modules: set[str], name: str) -> bool:
    return name in modules or any(m.startswith(name + ".") for m in modules)


@pytest.mark.parametrize("args", list(AVOIDS), ids=" ".join)
def test_a_command_imports_only_what_it_uses(args, tmp_path):
    modules, proc = command_imports(args, tmp_path / "home", tmp_path / "modules.json")
    assert proc.returncode == 0, proc.stderr
    assert "typer" in modules  # the command line itself did load
    assert [name for name in AVOIDS[args] if loaded(modules, name)] == []


def test_help_still_lists_every_command_with_its_help(tmp_path):
    """Lazy imports must not cost the listing: each command and group, with its first words of help."""
    import typer.main

    from detour.cli import app
    group = typer.main.get_command(app)
    _, proc = command_imports(("--help",), tmp_path / "home", tmp_path / "modules.json")
    listing = " ".join(proc.stdout.split())
    for name in group.list_commands(None):
        summary = group.get_command(None, name).get_short_help_str(limit=30).removesuffix("...")
        assert f" {name} " in listing and " ".join(summary.split()[:3]) in listing, name
