"""How each kind of program file is started."""

from __future__ import annotations

import sys
from pathlib import Path

from sandbox.environment import NODE_BIN

INTERPRETERS: dict[str, list[str]] = {
    ".py": [sys.executable],
    ".js": [str(NODE_BIN / "node")],
    ".mjs": [str(NODE_BIN / "node")],
    ".cjs": [str(NODE_BIN / "node")],
    ".ts": [str(NODE_BIN / "node")],   # Node 24 strips types itself
    ".mts": [str(NODE_BIN / "node")],
    ".sh": ["/bin/bash"],
    ".pl": ["/usr/bin/perl"],
}


class UnsupportedProgram(ValueError):
    pass


def command_for(program: Path) -> list[str]:
    """argv that runs `program` once it sits in the work directory under its own name."""
    interpreter = INTERPRETERS.get(program.suffix.lower())
    if interpreter is None:
        known = ", ".join(sorted(INTERPRETERS))
        raise UnsupportedProgram(f"cannot run {program.name}: unknown file type (known: {known}); "
                                 "use `detour run -- CMD ...` for anything else")
    return [*interpreter, program.name]
