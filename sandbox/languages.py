"""How each kind of program file is started, in a given runtime."""

from __future__ import annotations

from pathlib import Path

from sandbox.environment import HOST_RUNTIME, Runtime

# suffix -> (folder of the runtime, program), or an absolute program for system tools
LANGUAGES: dict[str, tuple[str, str]] = {
    ".py": ("python_bin", "python3"),
    ".js": ("node_bin", "node"),
    ".mjs": ("node_bin", "node"),
    ".cjs": ("node_bin", "node"),
    ".ts": ("node_bin", "node"),   # Node 24 strips types itself
    ".mts": ("node_bin", "node"),
    ".sh": ("", "/bin/bash"),
    ".pl": ("", "/usr/bin/perl"),
}


class UnsupportedProgram(ValueError):
    pass


def interpreter(suffix: str, runtime: Runtime = HOST_RUNTIME) -> str:
    folder, program = LANGUAGES[suffix]
    return str(getattr(runtime, folder) / program) if folder else program


def command_for(program: Path, runtime: Runtime = HOST_RUNTIME) -> list[str]:
    """argv that runs `program` once it sits in the work directory under its own name."""
    suffix = program.suffix.lower()
    if suffix not in LANGUAGES:
        known = ", ".join(sorted(LANGUAGES))
        raise UnsupportedProgram(f"cannot run {program.name}: unknown file type (known: {known}); "
                                 "use `detour run -- CMD ...` for anything else")
    return [interpreter(suffix, runtime), program.name]
