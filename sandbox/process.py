"""The `process` backend: a child process with rlimits and a watchdog. Not isolation.

It contains runaway programs (time, CPU, memory, process count, file size, output) but
a program that ignores the proxy variables can still reach the network; the namespace
and docker backends are the ones that enforce "only way out is the proxy".
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import psutil

from sandbox.base import Execution, KilledReason, Limits, Sandbox, SandboxSpec
from sandbox.environment import workdir_variables

POLL_S = 0.02
MB = 1024 * 1024


def _apply_rlimits(limits: Limits) -> None:
    """Runs in the child between fork and exec."""
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 2))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_size_mb * MB,) * 2)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class OutputCapture:
    """Reads stdout and stderr as they stream, keeping at most `limit` bytes in all."""

    def __init__(self, proc: subprocess.Popen, limit: int) -> None:
        self.limit = limit
        self.kept = 0
        self.exceeded = threading.Event()
        self.lock = threading.Lock()
        self.chunks: dict[str, list[bytes]] = {"stdout": [], "stderr": []}
        self.threads = [threading.Thread(target=self._pump, args=(stream, name), daemon=True)
                        for stream, name in ((proc.stdout, "stdout"), (proc.stderr, "stderr"))]
        for t in self.threads:
            t.start()

    def _pump(self, stream, name: str) -> None:
        fd = stream.fileno()
        while chunk := os.read(fd, 65536):
            with self.lock:
                room = self.limit - self.kept
                self.chunks[name].append(chunk[:max(room, 0)])
                self.kept += min(len(chunk), max(room, 0))
                if len(chunk) > room:
                    self.exceeded.set()
        stream.close()

    def finish(self) -> tuple[str, str]:
        for t in self.threads:
            t.join(timeout=2)
        with self.lock:
            return tuple(b"".join(self.chunks[n]).decode("utf-8", "replace") for n in ("stdout", "stderr"))


class Watchdog:
    """Samples the process tree and names the first limit it breaks."""

    def __init__(self, pid: int, limits: Limits, deadline: float) -> None:
        self.root = psutil.Process(pid)
        self.limits = limits
        self.deadline = deadline
        self.seen: dict[int, psutil.Process] = {pid: self.root}

    def tree(self) -> list[psutil.Process]:
        try:
            children = self.root.children(recursive=True)
        except psutil.NoSuchProcess:
            children = []
        self.seen.update((p.pid, p) for p in children)
        return [self.root, *children]

    def breach(self) -> KilledReason | None:
        if time.monotonic() > self.deadline:
            return "timeout"
        tree = self.tree()
        if len(tree) > self.limits.processes:
            return "processes"
        rss = 0
        for proc in tree:
            try:
                rss += proc.memory_info().rss
            except psutil.Error:
                continue
        return "memory" if rss > self.limits.memory_mb * MB else None

    def kill_all(self) -> None:
        """The process group first, then anything that left it (setsid) but was seen."""
        try:
            os.killpg(self.root.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        for proc in [*self.seen.values(), *self.tree()]:
            try:
                proc.kill()
            except psutil.Error:
                continue


def exit_code(returncode: int) -> int:
    """Shell convention: 128 + signal number for a process killed by a signal."""
    return returncode if returncode >= 0 else 128 - returncode


class ProcessSandbox(Sandbox):
    name = "process"

    def __init__(self, runs_dir: Path | None = None) -> None:
        self.runs_dir = runs_dir

    def run(self, spec: SandboxSpec) -> Execution:
        if self.runs_dir:
            self.runs_dir.mkdir(parents=True, exist_ok=True)
        workdir = Path(tempfile.mkdtemp(prefix="detour-run-", dir=self.runs_dir))
        try:
            (workdir / ".tmp").mkdir()
            if spec.program:
                shutil.copy2(spec.program, workdir / spec.program.name)
            return self._execute(spec, workdir)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def _execute(self, spec: SandboxSpec, workdir: Path) -> Execution:
        started = time.monotonic()
        proc = subprocess.Popen(
            spec.argv, cwd=workdir, env=spec.env | workdir_variables(workdir),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True, preexec_fn=lambda: _apply_rlimits(spec.limits))
        capture = OutputCapture(proc, spec.limits.output_bytes)
        watchdog = Watchdog(proc.pid, spec.limits, started + spec.limits.timeout_s)
        self._feed(proc, spec.stdin)
        killed: KilledReason | None = None
        while proc.poll() is None and killed is None:
            killed = "output" if capture.exceeded.is_set() else watchdog.breach()
            if killed is None:
                capture.exceeded.wait(POLL_S)
        watchdog.kill_all()
        returncode = proc.wait()
        stdout, stderr = capture.finish()
        if killed is None and capture.exceeded.is_set():
            killed = "output"
        if killed is None and returncode == -signal.SIGXCPU:
            killed = "cpu"
        return Execution(exit_code=exit_code(returncode), stdout=stdout, stderr=stderr,
                         timed_out=killed == "timeout", killed_reason=killed,
                         duration_ms=round((time.monotonic() - started) * 1000, 1))

    @staticmethod
    def _feed(proc: subprocess.Popen, data: bytes) -> None:
        try:
            if data:
                proc.stdin.write(data)
            proc.stdin.close()
        except BrokenPipeError:
            pass
