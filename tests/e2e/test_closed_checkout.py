"""A checkout in a folder other users may not pass (a 0750 home, `git clone` into `mktemp -d`,
here a 0700 folder in /srv): runs under a uid that is an "other" to it (the namespace backend's,
the process backend's as root) still import the runtime's packages from it (sandbox/namespace.py's
`_Shown`, sandbox/run_uid.py's `reveal_commands`)."""

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox.namespace import MASKED, NamespaceSandbox
from sandbox.own_runtime import own_runtime
from sandbox.process import ProcessSandbox
from sandbox.runtimes import host_runtime
from tests.conftest import needs_namespaces

# The sandbox masks /tmp, /root and /home whole and shows what it needs through them; a closed
# folder anywhere else is seen as the host has it.
OUTSIDE_MASKS = next((p for p in map(Path, ("/srv", "/opt", "/mnt")) if p.is_dir() and not any(
    p.is_relative_to(m) for m in MASKED)), None)

AGENT = """
import sys
import requests
from slack_sdk import WebClient
print(requests.__name__, sys.prefix, WebClient(token="xoxb-1").auth_test()["ok"])
"""


@pytest.fixture
def closed_runtime() -> Iterator[Path]:
    """detour's own runtime venv, mounted where a checkout in a 0700 folder holds it."""
    if OUTSIDE_MASKS is None or not shutil.which("mount"):
        pytest.skip("no folder outside the sandbox's masks to make a closed one in")
    closed = Path(tempfile.mkdtemp(prefix="detour-closed-", dir=OUTSIDE_MASKS))  # 0700
    venv = closed / "checkout" / "sandbox" / "runtime" / "venv"
    venv.mkdir(parents=True)
    subprocess.run(["mount", "--bind", str(own_runtime().venv), str(venv)], check=True)
    try:
        yield venv
    finally:
        subprocess.run(["umount", str(venv)], check=True)
        shutil.rmtree(closed)


@needs_namespaces  # root, as the process backend needs to run the program under a uid of its own
@pytest.mark.parametrize("backend", ["namespace", "process"])
def test_a_runtime_behind_a_closed_folder_imports_its_packages(live_stack, closed_runtime, backend):
    runtime = host_runtime(closed_runtime / "bin" / "python3")
    state = live_stack.state
    sandbox = NamespaceSandbox(state, runtime) if backend == "namespace" else \
        ProcessSandbox(state.runs_dir, runtime, state_home=state.home)
    result = live_stack.run(live_stack.env(), AGENT, ".py", sandbox=sandbox)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.split() == ["requests", str(closed_runtime), "True"]
