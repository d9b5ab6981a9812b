"""The `process` backend: a child process with rlimits and a watchdog. Not isolation.

It contains runaway programs (time, CPU, memory, process count, file size, output) but
a program that ignores the proxy variables can still reach the network; the namespace
backend is the one that enforces "the only way out is the proxy". Given detour's state
folder, it keeps that folder out of the program's sight (hidden_state).
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import stat
import tempfile
from pathlib import Path

from sandbox import temp_folders
from sandbox.base import Execution, Limits, Sandbox, SandboxSpec
from sandbox.hidden_state import UNHIDDEN, can_hide, hiding, trust_copies
from sandbox.run_uid import claimed_uid, hand_over, reveal_commands
from sandbox.variables import clock_command, sandbox_environment, workdir_variables
from sandbox.runtimes import Runtime, host_runtime
from sandbox.supervisor import MB, supervise
from sandbox.workspace import prepare_workspace


def rlimit_values(limits: Limits) -> dict[str, tuple[int, int]]:
    """resource's name of each rlimit a run gets -> (soft, hard)."""
    return {"RLIMIT_CPU": (limits.cpu_s, limits.cpu_s + 2), "RLIMIT_FSIZE": (limits.file_size_mb * MB,) * 2,
            "RLIMIT_CORE": (0, 0)}


def apply_rlimits(limits: Limits, extra: dict[str, tuple[int, int]] | None = None) -> None:
    """Runs in the child between fork and exec."""
    for name, value in (rlimit_values(limits) | (extra or {})).items():
        resource.setrlimit(getattr(resource, name), value)


def _copies_for_the_uid(files: list[Path], folder: Path) -> dict[str, str]:
    """The named files a run's uid could not open where they are (not readable by others, or in
    a folder others may not enter: the reveal reopens the folders on the way, not the file's own),
    copied into the run's folder: path -> copy, for the command to name the copy."""
    copies = {}
    for index, file in enumerate(files):
        if file.stat().st_mode & stat.S_IROTH and file.parent.stat().st_mode & stat.S_IXOTH:
            continue
        copy = folder / "files" / str(index) / file.name
        copy.parent.mkdir(parents=True)
        shutil.copy2(file, copy)
        copies[str(file)] = str(copy)
    return copies


class ProcessSandbox(Sandbox):
    name = "process"

    def __init__(self, runs_dir: Path | None = None, runtime: Runtime | None = None,
                 state_home: Path | None = None) -> None:
        """`state_home`: detour's state, which runs must not see (the run folders then live
        outside it, in the system's temporary folder)."""
        self.hide = state_home if state_home and can_hide() else None
        self.runs_dir = None if self.hide else runs_dir
        self.warnings = [UNHIDDEN] if state_home and not self.hide else []
        self.runtime = runtime or host_runtime()

    def run(self, spec: SandboxSpec) -> Execution:
        if self.runs_dir:
            self.runs_dir.mkdir(parents=True, exist_ok=True)
        # As root, the program gets a uid of its own, which no other detour home is open to.
        with claimed_uid() if self.hide and os.geteuid() == 0 else contextlib.nullcontext() as uid:
            return self._run(spec, uid)

    def _run(self, spec: SandboxSpec, uid: int | None) -> Execution:
        # The work directory's parent holds the runtime's node_modules, where Node looks.
        folder = Path(tempfile.mkdtemp(prefix=temp_folders.prefix("run"), dir=self.runs_dir))
        try:
            workdir = spec.workspace or folder / "work"
            if spec.workspace:
                prepare_workspace(spec, uid=uid)
            elif spec.program:
                workdir.mkdir()
                shutil.copy2(spec.program, workdir / spec.program.name)
            (workdir / ".tmp").mkdir(parents=True, exist_ok=True)
            # Node looks for packages in the work directory's parents, or (a workspace) in it.
            modules = workdir / "node_modules" if spec.workspace else folder / "node_modules"
            if self.runtime.node_modules and not modules.exists(follow_symlinks=False):
                modules.symlink_to(self.runtime.node_modules, target_is_directory=True)
            trust = trust_copies(spec.trust, folder) if self.hide else spec.trust
            env = sandbox_environment(spec, trust, self.runtime)
            argv = [*clock_command(spec), *spec.argv]
            if uid is not None:
                copies = _copies_for_the_uid(spec.files, folder)
                argv = [copies.get(word, word) for word in argv]
                hand_over(folder, uid)
                needed = [*self.runtime.shows, *(f.parent for f in spec.files if str(f) not in copies),
                          *([spec.workspace] if spec.workspace else [])]
                argv = hiding(argv, self.hide, uid, reveal_commands(needed, folder / "reveal"))
            elif self.hide:  # the environment's time only where /dev/shm is the program's own (libfaketime)
                argv = hiding(argv, self.hide)
            else:
                argv = spec.argv
            done = supervise(argv, env=env | workdir_variables(workdir), cwd=workdir,
                             limits=spec.limits, stdin=spec.stdin, live=spec.stdio, control=spec.control,
                             limits_via="rlimit+watchdog",
                             preexec=lambda: apply_rlimits(spec.limits))
            return done.model_copy(update={"warnings": self.warnings})
        finally:
            shutil.rmtree(folder, ignore_errors=True)
