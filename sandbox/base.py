"""The seam between detour and whatever isolates agent code.

A backend gets a SandboxSpec (what to run, with which environment variables and limits)
and returns an Execution. Everything else (stacks, environments, audit lines, diffs) is
the runner's business, so a backend is only about starting and containing a process.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

KilledReason = Literal["timeout", "memory", "cpu", "processes", "output"]


class Limits(BaseModel):
    timeout_s: float = Field(60.0, gt=0, description="Wall-clock time before the run is killed.")
    cpu_s: int = Field(60, gt=0, description="CPU seconds per process (RLIMIT_CPU).")
    memory_mb: int = Field(1024, gt=0, description="Resident memory of the whole process tree.")
    processes: int = Field(128, gt=0, description="Processes alive at once in the tree.")
    file_size_mb: int = Field(64, gt=0, description="Largest file a process may write (RLIMIT_FSIZE).")
    output_bytes: int = Field(1_000_000, gt=0, description="stdout plus stderr kept before the run is killed.")


class SandboxSpec(BaseModel):
    argv: list[str] = Field(min_length=1)
    env: dict[str, str]
    limits: Limits = Limits()
    program: Path | None = Field(None, description="A file copied into the fresh work directory.")
    stdin: bytes = b""


class Execution(BaseModel):
    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool
    killed_reason: KilledReason | None
    duration_ms: float


class Sandbox(ABC):
    name: str

    @abstractmethod
    def run(self, spec: SandboxSpec) -> Execution:
        """Run spec.argv in a fresh work directory and wait for it, within spec.limits."""
