"""An executor's workspace: a host folder that is the sandbox's work directory on every run.

Each namespace sandbox runs under a uid of its own, and docker's under the image's, so the
folder is handed to the run's uid before it starts: files one run wrote, the next may change.
"""

from __future__ import annotations

import shutil

from sandbox.base import SandboxSpec
from sandbox.run_uid import hand_over


def prepare_workspace(spec: SandboxSpec, uid: int | None) -> None:
    """The program joins the workspace under its own name; with a uid, everything in it
    becomes that uid's (never following a symlink a run left there)."""
    assert spec.workspace is not None
    spec.workspace.mkdir(parents=True, exist_ok=True)
    if spec.program:
        shutil.copyfile(spec.program, spec.workspace / spec.program.name)
    if uid is None:
        return
    hand_over(spec.workspace, uid)
