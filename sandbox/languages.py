"""How each kind of program file is started, in a given runtime."""

from __future__ import annotations

from pathlib import Path

from sandbox.runtimes import Runtime

# suffix -> the runtime's interpreter ("python", "node"), or a system program
LANGUAGES: dict[str, str] = {
    ".py": "python",
    ".js": "node",
    ".mjs": "node",
    ".cjs": "node",
    ".ts": "node",   # Node 24 strips types itself
    ".mts": "node",
    ".sh": "/bin/bash",
    ".pl": "/usr/bin/perl",
}


class UnsupportedProgram(ValueError):
    pass


def interpreter(suffix: str, runtime: Runtime) -> str:
    program = LANGUAGES[suffix]
    return str(getattr(runtime, program)) if program in ("python", "node") else program


def command_for(program: Path, runtime: Runtime) -> list[str]:
    """argv that runs `program` once it sits in the work directory under its own name."""
    suffix = program.suffix.lower()
    if suffix not in LANGUAGES:
        known = ", ".join(sorted(LANGUAGES))
        raise UnsupportedProgram(f"cannot run {program.name}: unknown file type (known: {known}); "
                                 "use `detour run -- CMD ...` for anything else")
    return [interpreter(suffix, runtime), program.name]
