"""The seam between detour and whatever isolates agent code.

A backend gets a SandboxSpec (what to run, how to reach the proxy, which CA files to
trust, and the limits) and returns an Execution. Each backend decides where the proxy and
the CA files appear from inside its sandbox, and builds the environment variables with
sandbox.variables.sandbox_environment, the one definition of them.
"""

from __future__ import annotations

import contextlib
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from detour_core.strict import Strict

# "interrupted": its caller stopped it (a Ctrl-C, a client that asked), not a limit.
KilledReason = Literal["timeout", "memory", "cpu", "processes", "output", "interrupted"]
Mode = Literal["proxy", "rewrite"]
LimitsVia = Literal["cgroup v1", "cgroup v2", "rlimit+watchdog"]

if TYPE_CHECKING:
    from sandbox.runtimes import Runtime


class Limits(Strict):
    """What one run may use; given by callers (the CLI, the platform API), so a misspelled limit
    is an error, never a default silently kept."""

    timeout_s: float = Field(60.0, gt=0, description="Wall-clock time before the run is killed.")
    cpu_s: int = Field(60, gt=0, description="CPU seconds per process (RLIMIT_CPU).")
    memory_mb: int = Field(1024, gt=0, description="Memory of the whole process tree.")
    processes: int = Field(128, gt=0, description="Processes alive at once in the tree.")
    file_size_mb: int = Field(64, gt=0, description="Largest file a process may write (RLIMIT_FSIZE).")
    disk_mb: int = Field(256, gt=0, description="Writable space (namespace backend: tmpfs size).")
    output_bytes: int = Field(1_000_000, gt=0, description="stdout plus stderr kept before the run is killed.")


class ProxyAccess(BaseModel):
    """How a sandbox reaches its stack, as seen from the host."""

    env_id: str
    secret: str
    host: str
    port: int
    transparent_port: int
    dns_port: int
    gateway_port: int

    def url(self, host: str | None = None) -> str:
        return f"http://{self.env_id}:{self.secret}@{host or self.host}:{self.port}"

    def gateway(self, host: str | None = None) -> str:
        """Where rewrite-mode preludes send requests (a reverse proxy in front of the replicas)."""
        return f"http://{host or self.host}:{self.gateway_port}"


SYSTEM_CERTS = Path("/etc/ssl/certs")  # the system's trust store, where most clients look


class TrustFiles(BaseModel):
    """The public CA files a sandbox trusts (never the key)."""

    cert: Path
    bundle: Path
    wgetrc: Path
    certs: Path | None = Field(None, description="A folder laid out as /etc/ssl/certs with the CA added "
                                                 "(its java/cacerts a Java trust store), shown in its place.")


@dataclass
class RunControl:
    """A caller's hold on a run while it runs: the program's output as it writes it (stream name
    and bytes, as they come), and a stop that ends the run within a poll, as a limit would, so
    that what it wrote and did so far is still reported."""

    output: Callable[[str, bytes], None] | None = None
    stop: threading.Event = field(default_factory=threading.Event)


class SandboxSpec(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    argv: list[str] = Field(min_length=1)
    proxy: ProxyAccess | None
    mode: Mode = Field("proxy", description="proxy: through mitmproxy; rewrite: preludes rewrite URLs.")
    trust: TrustFiles
    limits: Limits = Limits()
    program: Path | None = Field(None, description="A file placed in the fresh work directory.")
    stdin: bytes = b""
    stdio: bool = Field(False, description="The program reads the caller's stdin and its stdout reaches the caller's "
                                           "as it comes (a stdio server: MCP).")
    task: dict[str, str] = Field({}, description="What the agent is asked to do (DETOUR_PROMPT, ...).")
    credentials: dict[str, str] = Field({}, description="The replicas' tokens for the environment's acting user "
                                                        "(SLACK_BOT_TOKEN, ...): issued by it, worth nothing outside it.")
    placeholders: dict[str, str] = Field({}, description="Variables that stand for secrets the proxy injects "
                                                          "(detour_core.secrets): never the real values.")
    files: list[Path] = Field([], description="Host files the command names, visible read-only at their own path.")
    clock_at: float | None = Field(None, description="The environment's time (epoch seconds) the sandbox's clock "
                                                     "starts from (libfaketime); None: the real time.")
    workspace: Path | None = Field(None, description="A host folder that is the work directory, kept across runs "
                                                     "(an executor's): the sandbox may write to it.")
    control: RunControl | None = Field(None, exclude=True, description="Its output as it comes, and its stop.")


class Execution(BaseModel):
    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool
    killed_reason: KilledReason | None
    duration_ms: float
    limits_via: LimitsVia
    warnings: list[str] = Field([], description="What detour could not do for this run, said to its user.")


class Sandbox(ABC):
    name: str
    runtime: Runtime  # where the interpreters are, as the sandbox sees them

    @abstractmethod
    def run(self, spec: SandboxSpec) -> Execution:
        """Run spec.argv in a fresh work directory and wait for it, within spec.limits."""

    @contextlib.contextmanager
    def hold(self, proxy: ProxyAccess, mode: Mode = "proxy") -> Iterator[None]:
        """While held, runs for this environment and mode may share what a backend would
        otherwise build and remove on each run (an executor's many short runs)."""
        yield
