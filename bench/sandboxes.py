"""The sandbox rows of `make bench`: `detour run`, sandbox and runtime start, executors, docker
at concurrency, transparent versus regular, proxy versus rewrite mode."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.common import DETOUR, program_file
from bench.stats import percentile
from certs.authority import CertificateAuthority
from detour.background import BACKGROUND_VARIABLE
from detour.runner import run_in_environment
from detour.stack import StackInfo
from detour_core.credentials import secret_for
from detour_core.paths import StatePaths
from mock_services.store import EnvironmentStore
from sandbox.base import Sandbox, SandboxSpec
from sandbox.namespace import NamespaceSandbox, requirements_missing
from sandbox.process import ProcessSandbox
from sandbox.runtimes import host_runtime


def bench_detour_run(state: StatePaths, env_id: str, running: bool) -> None:
    """Wall time of the `detour run` command. With a stack running, a plain run is one request
    to it (detour.console); without one, the CLI starts an embedded stack for the command (not a
    background stack: that would answer the later runs, and outlive the bench)."""
    with tempfile.TemporaryDirectory(prefix="detour-bench-run-") as folder:
        script = Path(folder, "trivial.py")  # outside $DETOUR_HOME, which sandboxes never see
        script.write_text("print('ok')\n")
        env = os.environ | {"DETOUR_HOME": str(state.home)} | ({} if running else {BACKGROUND_VARIABLE: "off"})
        backends = ("process", "namespace") if running else ("process",)
        for backend in backends:
            if backend == "namespace" and requirements_missing():
                continue
            runs = 20 if running else 3
            times = []
            for _ in range(runs):
                start = time.perf_counter()
                subprocess.run([DETOUR, "run", "--backend", backend, "--env", env_id, str(script)], env=env,
                               check=True, capture_output=True)
                times.append((time.perf_counter() - start) * 1000)
            label = "with a stack running" if running else "embedded stack (none running)"
            print(f"  detour run trivial.py, {backend:<9} {label:<30} median {statistics.median(times):7.0f} ms   "
                  f"p90 {percentile(times, 90):7.0f} ms   (n={runs})")


def bench_background_run(runs: int = 20) -> None:
    """`detour run` with no `detour serve`: the first run starts the home's background stack,
    the later ones reuse it (the figure is theirs, from the second run on)."""
    with tempfile.TemporaryDirectory(prefix="detour-bench-home-") as home, \
            tempfile.TemporaryDirectory(prefix="detour-bench-run-") as folder:
        script = Path(folder, "trivial.py")
        script.write_text("print('ok')\n")
        env = os.environ | {"DETOUR_HOME": home, BACKGROUND_VARIABLE: "on"}
        command = [DETOUR, "run", "--backend", "process", str(script)]
        try:
            start = time.perf_counter()
            subprocess.run(command, env=env, check=True, capture_output=True)
            first = (time.perf_counter() - start) * 1000
            times = []
            for _ in range(runs):
                start = time.perf_counter()
                subprocess.run(command, env=env, check=True, capture_output=True)
                times.append((time.perf_counter() - start) * 1000)
        finally:
            subprocess.run([DETOUR, "stack", "stop"], env=env, capture_output=True)
    print(f"  detour run trivial.py, process   background stack (no serve)    first {first:7.0f} ms, then median "
          f"{statistics.median(times):5.0f} ms   p90 {percentile(times, 90):5.0f} ms   (n={runs}; goal: median <= 200)")


def docker_sandbox(state: StatePaths) -> Sandbox | None:
    """The docker backend, where an engine runs and the images are built."""
    if requirements_missing():
        return None
    from detour_core.errors import DetourError
    from sandbox.docker import DockerSandbox
    try:
        return DockerSandbox(state)
    except DetourError as e:
        print(f"  (docker backend unavailable: {e})")
        return None


def bench_sandbox_start(state: StatePaths, info: StackInfo, env_id: str) -> None:
    """Start latency (the call to the program's first instruction, read from the clock the
    program prints) and start plus teardown of the whole run."""
    backends: list[Sandbox] = [ProcessSandbox(state.runs_dir)]
    if not requirements_missing():
        backends.append(NamespaceSandbox(state))
    if docker := docker_sandbox(state):
        backends.append(docker)
    trust = CertificateAuthority(state).ensure().trust_files()
    proxy = info.access(env_id, secret_for(state, env_id))
    for sandbox in backends:
        starts, totals = [], []
        for _ in range(30):
            called = time.time_ns()
            result = sandbox.run(SandboxSpec(argv=["/bin/date", "+%s%N"], proxy=proxy, trust=trust))
            totals.append((time.time_ns() - called) / 1e6)
            starts.append((int(result.stdout) - called) / 1e6)
        print(f"  {sandbox.name:<10} start latency median {statistics.median(starts):6.1f} ms   "
              f"start+teardown median {statistics.median(totals):6.1f} ms   p90 {percentile(totals, 90):6.1f} ms   "
              f"(n={len(totals)})")


def bench_runtime_start(state: StatePaths, info: StackInfo, env_id: str) -> None:
    """Python's first instruction in a sandbox, with detour's runtime and with a user's venv
    (whose interpreter detour asks once per process for the folders it needs)."""
    venv = Path(tempfile.mkdtemp(prefix="detour-bench-venv-")) / "venv"
    subprocess.run([sys._base_executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    probe_started = time.perf_counter()
    runtimes = {"detour's runtime": host_runtime(), "a user venv": host_runtime(venv / "bin" / "python")}
    print(f"  asking the two interpreters for their folders: {(time.perf_counter() - probe_started) * 1000:5.1f} ms "
          "(once per interpreter and process)")
    trust = CertificateAuthority(state).ensure().trust_files()
    proxy = info.access(env_id, secret_for(state, env_id))
    for label, runtime in runtimes.items():
        sandboxes = [ProcessSandbox(state.runs_dir, runtime)]
        if not requirements_missing():
            sandboxes.append(NamespaceSandbox(state, runtime))
        for sandbox in sandboxes:
            starts = []
            for _ in range(20):
                called = time.time_ns()
                argv = [str(runtime.python), "-c", "import time; print(time.time_ns())"]
                result = sandbox.run(SandboxSpec(argv=argv, proxy=proxy, trust=trust))
                starts.append((int(result.stdout) - called) / 1e6)
            print(f"  {sandbox.name:<10} {label:<17} python started in median {statistics.median(starts):6.1f} ms   "
                  f"p90 {percentile(starts, 90):6.1f} ms   (n={len(starts)})")
    shutil.rmtree(venv.parent)


def calls_program(calls: int) -> str:
    """An agent program (requests, one keep-alive session) that posts `calls` messages."""
    return f"""
import requests
with requests.Session() as slack:
    slack.headers["Authorization"] = "Bearer xoxb-bench"
    for i in range({calls}):
        assert slack.post("https://slack.com/api/chat.postMessage", data={{"channel": "general", "text": str(i)}}).json()["ok"]
"""


def bench_concurrent_containers(state: StatePaths, info: StackInfo) -> None:
    """20 containers at once, each in its own environment, each making 10 calls: each made for
    its run, then taken from a pool of 20 made ahead (refilled between rounds, not timed)."""
    fresh = docker_sandbox(state)
    if fresh is None:
        return
    from sandbox.docker import DockerSandbox
    from sandbox.languages import command_for
    program = program_file("ten.py", calls_program(10))
    store = EnvironmentStore(state)
    pooled = DockerSandbox(state, pool=20, trust=CertificateAuthority(state).ensure().trust_files())
    try:
        for label, sandbox in (("made per run", fresh), ("from a pool", pooled)):
            for _ in range(2):
                if sandbox.pool:
                    sandbox.pool.wait_full(300)
                envs = [store.create("slack_default").env_id for _ in range(20)]
                started = time.perf_counter()
                with ThreadPoolExecutor(20) as pool:
                    results = list(pool.map(lambda env: run_in_environment(
                        state, info, env, sandbox, command_for(program, sandbox.runtime), program=program), envs))
                elapsed = time.perf_counter() - started
                assert all(r.exit_code == 0 for r in results), [r.stderr for r in results if r.exit_code][:1]
                print(f"  20 containers x 10 calls, {label:<12}: {elapsed:5.2f} s wall   {20 / elapsed:5.1f} "
                      f"sandboxes/s   {200 / elapsed:5.0f} req/s   run median "
                      f"{statistics.median(r.duration_ms for r in results):6.0f} ms   (goal: 2 s wall, median 1 s)")
    finally:
        pooled.close()


INSIDE_LOAD = """
import time, httpx
for label, trust_env in (("regular (HTTPS_PROXY)", True), ("transparent (no proxy)", False)):
    with httpx.Client(trust_env=trust_env, verify="/run/detour-ca/bundle.pem") as client:
        client.post("https://slack.com/api/auth.test", headers={"Authorization": "Bearer x"})
        start = time.perf_counter()
        for _ in range(400):
            assert client.post("https://slack.com/api/auth.test", headers={"Authorization": "Bearer x"}).json()["ok"]
        print(f"  {label:<24} c=1: {400 / (time.perf_counter() - start):8.0f} req/s  (n=400, keep-alive)")
"""


def bench_transparent_vs_regular(state: StatePaths, info: StackInfo, env_id: str) -> None:
    if requirements_missing():
        print("  (namespace backend unavailable here)")
        return
    program = program_file("load.py", INSIDE_LOAD)
    result = run_in_environment(state, info, env_id, NamespaceSandbox(state), [sys.executable, "load.py"],
                                program=program)
    print(result.stdout.rstrip() or result.stderr)


def bench_modes(state: StatePaths, info: StackInfo) -> None:
    """Wall time of one agent program making 50 replica calls, in each mode."""
    program = program_file("fifty.py", calls_program(50))
    sandbox = NamespaceSandbox(state) if not requirements_missing() else ProcessSandbox(state.runs_dir)
    store = EnvironmentStore(state)
    medians = {}
    for mode in ("proxy", "rewrite"):
        times = []
        for _ in range(5):
            env_id = store.create("slack_default").env_id
            result = run_in_environment(state, info, env_id, sandbox, [sys.executable, "fifty.py"],
                                        program=program, mode=mode)
            assert result.exit_code == 0, result.stderr
            times.append(result.duration_ms)
        medians[mode] = statistics.median(times)
        print(f"  {mode:<8} ({sandbox.name}) 50 calls: median {medians[mode]:6.0f} ms   (n={len(times)})")
    print(f"  proxy / rewrite: {medians['proxy'] / medians['rewrite']:.2f}x")


SDK_TIMING = """
import statistics, sys, time
from agent_diff import PythonExecutorProxy
executor = PythonExecutorProxy("bench", base_url=sys.argv[1])
times = []
for _ in range(int(sys.argv[2])):
    started = time.perf_counter()
    assert executor.execute("print(1)")["stdout"] == "1\\n"
    times.append((time.perf_counter() - started) * 1000)
print(" ".join(f"{t:.2f}" for t in times))
"""


def agentdiff_python() -> Path:
    """AgentDiff's SDK in a venv of its own (its pydantic does not fit mitmproxy's), kept in build/."""
    venv = Path(__file__).resolve().parent.parent / "build" / "bench-agentdiff"
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys._base_executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", "agent-diff>=1.0.7,<1.1"], check=True)
    return venv / "bin" / "python"


def run_agentdiff(args: list[str], env: dict[str, str], check: bool = False) -> subprocess.CompletedProcess:
    """AgentDiff's SDK's Python with `args`, in a temporary folder of its own removed after: its
    executor makes a workspace per environment there (agent_diff_<env>_...) and removes them only
    at a clean exit. Its executor starts `python3` from PATH."""
    python = agentdiff_python()
    with tempfile.TemporaryDirectory(prefix="detour-bench-agentdiff-") as scratch:
        return subprocess.run([str(python), *args], capture_output=True, text=True, check=check,
                              env={"PATH": f"{python.parent}:/usr/bin:/bin", "TMPDIR": scratch} | env)


def spread(times: list[float]) -> str:
    return f"median {statistics.median(times):6.1f} ms   p90 {percentile(times, 90):6.1f} ms   (n={len(times)})"


def bench_executors(state: StatePaths, info: StackInfo, runs: int = 40) -> None:
    """execute("print(1)") with a warm client: detour's executors (a sandbox per call, proxy
    mode) beside the SDK's PythonExecutorProxy (a bare subprocess, no isolation) in the same run."""
    from detour.client import Client
    client = Client(home=state.home, stack=info)
    for backend in ("process", "namespace"):
        if backend == "namespace" and requirements_missing():
            continue
        with client.executor("python", backend=backend) as executor:
            for _ in range(3):
                executor.execute("print(1)")
            times = []
            for _ in range(runs):
                started = time.perf_counter()
                executor.execute("print(1)")
                times.append((time.perf_counter() - started) * 1000)
        print(f"  detour executor, {backend:<10} {spread(times)}")
    done = run_agentdiff(["-c", SDK_TIMING, info.replica_url, str(runs)], {}, check=True)
    print(f"  agent-diff PythonExecutorProxy   {spread([float(t) for t in done.stdout.split()])}")
