"""detour's state is out of every sandbox's reach: an agent that knows where $DETOUR_HOME is
hunts for the CA's key, the secret store, the databases and the signing keys, directly, by
walking the folder and around it through /proc, on every backend, and finds none of it. A
program file inside the state is refused on the full CLI and on the quick path alike."""

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from certs.authority import CertificateAuthority
from detour_core.credentials import api_key, load_or_create_key
from detour_core.paths import StatePaths

from tests.conftest import BACKENDS
from tests.e2e.test_cli import DETOUR, home, server  # noqa: F401 - fixtures
from tests.e2e.test_cli import detour

HUNT = r"""
import json, os
home = "HOME_OF_DETOUR"
found = []

def look(path):
    try:
        if os.path.isdir(path):
            found.extend(os.path.join(path, name) for name in os.listdir(path))
        else:
            with open(path, "rb") as f:
                if f.read(1 << 16):
                    found.append(path)
    except OSError:
        pass

for part in ("ca/detour-ca.key", "ca", "secrets", "environments", "signing.key", "api.key", "mitmproxy", ""):
    look(os.path.join(home, part))
for top, _, names in os.walk(home):
    found.extend(os.path.join(top, name) for name in names)
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    for way in ("root", "cwd"):
        look(f"/proc/{pid}/{way}{home}/ca/detour-ca.key")
        look(f"/proc/{pid}/{way}{home}/secrets")
    try:
        if b"PRIVATE KEY" in open(f"/proc/{pid}/environ", "rb").read():
            found.append(f"/proc/{pid}/environ")
    except OSError:
        pass
print(json.dumps({"found": sorted(set(found)), "me": os.getpid()}))
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_agent_hunting_for_detours_state_finds_nothing(live_stack, backend):
    env = live_stack.env()
    home = live_stack.state.home
    key = (home / "ca" / "detour-ca.key").read_text()
    assert "PRIVATE KEY" in key and (home / "secrets").parent == home  # what it hunts for is there
    result = live_stack.run(env, HUNT.replace("HOME_OF_DETOUR", str(home)), ".py", backend=backend)
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["found"] == [] and result.warnings == []
    assert key.splitlines()[1] not in result.stdout


def test_a_program_inside_the_state_is_refused_on_the_quick_path_too(home, server):  # noqa: F811
    server.start()
    inside = home / "agent.py"
    inside.write_text("print(open(__file__.rsplit('/', 1)[0] + '/ca/detour-ca.key').read())")
    for argv in (["run", str(inside)], ["run", "--backend", "process", str(inside)]):
        done = subprocess.run([DETOUR, *argv], capture_output=True, text=True, timeout=120,
                              env=os.environ | {"DETOUR_HOME": str(home)})
        assert done.returncode != 0 and "is inside detour's state" in done.stderr, done.stderr
        assert "PRIVATE KEY" not in done.stdout + done.stderr
    assert detour(home, "env", "list").returncode == 0  # the home is as it was


OTHER_HOME_READS = r"""
import json
found = {}
for path in PATHS:
    try:
        found[path] = open(path, "rb").read(64).decode("latin-1")
    except OSError as e:
        found[path] = type(e).__name__
print(json.dumps(found))
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="as another user, the program runs as that user (docs/limits.md)")
def test_another_detour_home_is_closed_to_a_process_backend_program(live_stack):
    """A second home on the machine (another user's of detour, made here as detour makes one, in a
    folder anyone may pass): its CA key, signing key and API key, which root reads, are closed to
    a program on the process backend, which runs under a uid of its own."""
    folder = Path(tempfile.mkdtemp(prefix="detour-other-home-"))
    try:
        folder.chmod(0o755)
        other = StatePaths(folder / "home").ensure()
        CertificateAuthority(other).ensure()
        load_or_create_key(other.signing_key)
        api_key(other)
        paths = [str(other.ca_dir / "detour-ca.key"), str(other.signing_key), str(other.api_key_file)]
        assert all(Path(p).read_bytes() for p in paths)  # they are there, and root reads them
        code = OTHER_HOME_READS.replace("PATHS", json.dumps(paths))
        result = live_stack.run(live_stack.env(), code, ".py", backend="process")
        assert result.exit_code == 0, result.stderr
        assert json.loads(result.stdout) == {p: "PermissionError" for p in paths}
    finally:
        shutil.rmtree(folder)
