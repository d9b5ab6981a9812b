"""How each kind of program file is started, in a given runtime."""

from __future__ import annotations

from pathlib import Path

from detour_core.errors import DetourError
from sandbox.runtimes import Runtime

# suffix -> the runtime's interpreter ("python", "node"), or a system program (and its words
# before the file); the system's own languages come from Debian's packages (`detour doctor`)
LANGUAGES: dict[str, tuple[str, ...]] = {
    ".py": ("python",),
    ".js": ("node",),
    ".mjs": ("node",),
    ".cjs": ("node",),
    ".ts": ("node",),   # Node 24 strips types itself
    ".mts": ("node",),
    ".sh": ("/bin/bash",),
    ".pl": ("/usr/bin/perl",),
    ".java": ("java",),      # a single source file, compiled in memory (JDK 11 and later)
    ".go": ("go", "run"),
    ".rb": ("ruby",),
    ".php": ("php",),
}


# A language's name (the Python API, executors, the run API) -> its program suffix
SUFFIXES: dict[str, str] = {"python": ".py", "javascript": ".mjs", "typescript": ".ts", "bash": ".sh", "perl": ".pl"}

# Executors feed code on stdin, so nothing of the caller's lands in the workspace.
_FROM_STDIN: dict[str, list[str]] = {
    "python": ["-"], "javascript": ["--input-type=module"], "typescript": ["--input-type=module-typescript"],
    "bash": ["-s"], "perl": ["-"]}


class UnsupportedProgram(DetourError, ValueError):
    pass


def suffix_of(language: str) -> str:
    if language not in SUFFIXES:
        raise UnsupportedProgram(f"unknown language {language!r} (known: {', '.join(SUFFIXES)})")
    return SUFFIXES[language]


def stdin_command(language: str, runtime: Runtime) -> list[str]:
    """argv that runs code the program reads from its stdin."""
    return [interpreter(suffix_of(language), runtime), *_FROM_STDIN[language]]


def interpreter(suffix: str, runtime: Runtime) -> str:
    program = LANGUAGES[suffix][0]
    return str(getattr(runtime, program)) if program in ("python", "node") else program


def command_for(program: Path, runtime: Runtime) -> list[str]:
    """argv that runs `program` once it sits in the work directory under its own name."""
    suffix = program.suffix.lower()
    if suffix not in LANGUAGES:
        known = ", ".join(sorted(LANGUAGES))
        raise UnsupportedProgram(f"cannot run {program.name}: unknown file type (known: {known}); "
                                 "use `detour run -- CMD ...` for anything else")
    return [interpreter(suffix, runtime), *LANGUAGES[suffix][1:], program.name]
