"""Which backend runs a sandbox: the one choice the CLI, the Python API and the run API share.
The backends themselves are imported when one opens: the CLI names `Backend` in every command's
options, and a command that runs nothing should not load them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from detour_core.errors import DetourError
from detour_core.paths import StatePaths
from sandbox.runtimes import RuntimeChoice

if TYPE_CHECKING:
    from sandbox.base import Sandbox

Backend = Literal["auto", "process", "namespace", "docker"]


class BackendUnavailable(DetourError):
    pass


def open_backend(name: Backend, paths: StatePaths, runtime: RuntimeChoice = RuntimeChoice()) -> Sandbox:
    """auto: the namespace backend where this machine can run it, else process (not isolation:
    callers say so to their user). What killed detours' runs left in the temporary folders goes
    (sandbox/temp_folders.py)."""
    from sandbox import namespace, temp_folders
    from sandbox.process import ProcessSandbox

    for where in (None, paths.runs_dir):
        temp_folders.remove_dead(where)
    missing = namespace.requirements_missing()
    if name == "docker":
        if missing:
            raise BackendUnavailable(f"the docker backend wires each container's network as the namespace backend "
                                     f"does, and needs {', '.join(missing)}")
        from sandbox.docker import DockerSandbox
        return DockerSandbox(paths, image=runtime.for_image())
    if name == "namespace" and missing:
        raise BackendUnavailable(f"the namespace backend needs {', '.join(missing)}")
    if name == "namespace" or (name == "auto" and not missing):
        return namespace.NamespaceSandbox(paths, runtime.for_host())
    return ProcessSandbox(paths.runs_dir, runtime.for_host(), state_home=paths.home)
