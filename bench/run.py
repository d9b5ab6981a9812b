"""`make bench`: latency and throughput of detour's moving parts, printed, never asserted.

Runs on loopback only, with bounded request counts. The load generator is Python and
shares the machine's two cores with mitmdump and uvicorn, so absolute numbers are a
floor for what the stack can do, not a ceiling.
"""

from __future__ import annotations

import atexit
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from certs.authority import CertificateAuthority
from bench.calendar import bench_calendar_month
from bench.stats import percentile
from detour_core.credentials import secret_for
from detour_core.paths import DATABASE_VARIABLE, StatePaths
from detour.stack import EMBEDDED, Stack, StackInfo
from detour.runner import run_in_environment
from mock_services.store import EnvironmentStore
from sandbox.base import Sandbox, SandboxSpec
from sandbox.namespace import NamespaceSandbox, requirements_missing
from sandbox.process import ProcessSandbox
from sandbox.runtimes import host_runtime

AUTH = {"Authorization": "Bearer xoxb-bench"}
MB = 1024 * 1024
DETOUR = str(Path(sys.executable).parent / "detour")


# Agent programs live outside $DETOUR_HOME: detour refuses to show its state to a sandbox.
PROGRAMS = Path(tempfile.mkdtemp(prefix="detour-bench-programs-"))
atexit.register(shutil.rmtree, PROGRAMS, True)


def program_file(name: str, text: str) -> Path:
    path = PROGRAMS / name
    path.write_text(text)
    return path


def load(make_client, url: str, clients: int, requests_each: int) -> str:
    """Closed loop: each client sends its requests back to back on one keep-alive connection."""
    def worker(_: int) -> list[float]:
        latencies = []
        with make_client() as client:
            client.post(url, headers=AUTH)  # warm the connection
            for _ in range(requests_each):
                start = time.perf_counter()
                response = client.post(url, headers=AUTH)
                latencies.append((time.perf_counter() - start) * 1000)
                assert response.json()["ok"], response.text
        return latencies

    started = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        latencies = [ms for result in pool.map(worker, range(clients)) for ms in result]
    elapsed = time.perf_counter() - started
    return (f"{len(latencies) / elapsed:8.0f} req/s   p50 {statistics.median(latencies):6.1f} ms   "
            f"p99 {percentile(latencies, 99):6.1f} ms   (n={len(latencies)})")


def bench_proxy_hop(state: StatePaths, env_id: str) -> None:
    """auth.test direct to the replica server, and through the proxy each way it can reach the
    replicas (over HTTP; in its own process; with a worker per core), one stack after another."""
    bundle = str(CertificateAuthority(state).ensure().bundle)
    cores = os.cpu_count() or 1
    ways = (("over HTTP, 1 worker", {}), ("in-process, 1 worker", {"replicas_in_process": True}),
            (f"in-process, {cores} workers", {"workers": cores}),
            (f"over HTTP, {cores} workers", {"replicas_in_process": False, "workers": cores}))
    for label, options in ways:
        with Stack(state, **options) as info:
            direct = f"{info.replica_url}/api/env/{env_id}/services/slack/api/auth.test"
            proxy = info.access(env_id, secret_for(state, env_id)).url()
            for clients, each in ((1, 400), (8, 150)):
                print(f"  replica direct               c={clients}: " + load(lambda: httpx.Client(), direct, clients, each))
                print(f"  proxy, {label:<21} c={clients}: " + load(
                    lambda: httpx.Client(proxy=proxy, verify=bundle), "https://slack.com/api/auth.test", clients, each))


def bench_embedded_start(state: StatePaths, runs: int = 5) -> None:
    """From nothing to a proxy that takes connections, as `detour run` starts one when no
    `detour serve` runs (the replicas load inside it meanwhile)."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        with Stack(state, parts=EMBEDDED):
            times.append((time.perf_counter() - start) * 1000)
    print(f"  embedded stack start          median {statistics.median(times):7.0f} ms   (n={runs})")


def bench_capture(state: StatePaths, info: StackInfo, store: EnvironmentStore) -> None:
    """auth.test through the proxy with each capture level, one environment each, same run."""
    from detour_core.policy import Policy, policy_file, save_policy
    bundle = str(CertificateAuthority(state).ensure().bundle)
    for capture in ("off", "headers", "bodies"):
        env_id = store.create("slack_default").env_id
        save_policy(policy_file(state, env_id), Policy(capture=capture))
        proxy = info.access(env_id, secret_for(state, env_id)).url()
        for clients, each in ((1, 400), (8, 150)):
            print(f"  capture {capture:<8} c={clients}: " + load(
                lambda: httpx.Client(proxy=proxy, verify=bundle), "https://slack.com/api/auth.test", clients, each))


def soak(state: StatePaths, requests_total: int = 100_000, clients: int = 8) -> None:
    """Many requests through one proxy: its memory at the start (after a warm-up) and at the end."""
    import psutil
    with tempfile.TemporaryDirectory(prefix="detour-soak-") as tmp:
        home = StatePaths(Path(tmp)).ensure()
        env_id = EnvironmentStore(home).create("slack_default").env_id
        stack = Stack(home)
        with stack as info:
            proxy = psutil.Process(stack.processes["proxy"].pid)
            proxy_url = info.access(env_id, secret_for(home, env_id)).url()
            bundle = str(CertificateAuthority(home).ensure().bundle)
            url = "https://slack.com/api/auth.test"
            load(lambda: httpx.Client(proxy=proxy_url, verify=bundle), url, clients, 200)
            start_rss = proxy.memory_info().rss
            print(f"  soak {requests_total:,} requests, c={clients}: " + load(
                lambda: httpx.Client(proxy=proxy_url, verify=bundle), url, clients, requests_total // clients))
            end_rss = proxy.memory_info().rss
        print(f"  proxy RSS start {start_rss / MB:6.1f} MB, end {end_rss / MB:6.1f} MB "
              f"({(end_rss - start_rss) / start_rss * 100:+.1f}%)")


def bench_two_nodes(clients: int = 8, each: int = 150) -> None:
    """Two replica servers and two proxies on one Postgres; clients split across the proxies."""
    from tests.postgres import BINARIES, fresh_database, postgres_server
    if not BINARIES:
        print("  (no postgresql here: detour doctor --install)")
        return
    with postgres_server() as server, fresh_database(server) as database, \
            tempfile.TemporaryDirectory(prefix="detour-nodes-") as tmp:
        os.environ[DATABASE_VARIABLE] = database
        try:
            home = StatePaths(Path(tmp)).ensure()
            env_id = EnvironmentStore(home).create("slack_default").env_id
            bundle = str(CertificateAuthority(home).ensure().bundle)
            with Stack(home) as first, Stack(home) as second:
                proxies = [s.access(env_id, secret_for(home, env_id)).url() for s in (first, second)]
                turn = iter(range(clients))
                print(f"  two nodes, one Postgres, c={clients}: " + load(
                    lambda: httpx.Client(proxy=proxies[next(turn) % 2], verify=bundle),
                    "https://slack.com/api/auth.test", clients, each))
        finally:
            del os.environ[DATABASE_VARIABLE]


def bench_environment_creation(store: EnvironmentStore, label: str = "SQLite") -> None:
    """The first creation from a template also loads it (Postgres keeps a schema per template)."""
    for template in ("slack_default", "linear_default", "slack_bench_v2", "linear_expanded", "calendar_default"):
        store.create(template)
        times = []
        for _ in range(30):
            start = time.perf_counter()
            store.create(template)
            times.append((time.perf_counter() - start) * 1000)
        print(f"  {label:<8} create from {template:<15} median {statistics.median(times):6.1f} ms   "
              f"p90 {percentile(times, 90):6.1f} ms   (n={len(times)})")


def bench_postgres_creation(state: StatePaths) -> None:
    """The same on a Postgres server of the bench's own (Debian's binaries, socket only)."""
    from tests.postgres import BINARIES, fresh_database, postgres_server
    if not BINARIES:
        print("  (no postgresql here: detour doctor --install)")
        return
    with postgres_server() as server, fresh_database(server) as url:
        os.environ[DATABASE_VARIABLE] = url
        try:
            bench_environment_creation(EnvironmentStore(state), "Postgres")
        finally:
            del os.environ[DATABASE_VARIABLE]


MIXED_CALLS = (
    ("chat.postMessage", {"channel": "general", "text": "bench"}),
    ("conversations.history", {"channel": "general", "limit": "20"}),
    ("conversations.list", {}),
    ("users.info", {"user": "U01AGENBOT9"}),
    ("conversations.info", {"channel": "general"}),
    ("users.list", {}),
    ("conversations.members", {"channel": "general"}),
    ("search.messages", {"query": "bench"}),
    ("auth.test", {}),
    ("conversations.replies", {"channel": "general", "ts": "{ts}"}),
)


def bench_slack_mixed(info: StackInfo, store: EnvironmentStore) -> None:
    """A script of 1,000 Slack calls of ten kinds, direct to the replica on one keep-alive connection."""
    env_id = store.create("slack_bench_v2").env_id
    base = f"{info.replica_url}/api/env/{env_id}/services/slack/api/"
    with httpx.Client(headers=AUTH) as client:
        ts = client.post(base + "chat.postMessage", data={"channel": "general", "text": "root"}).json()["ts"]
        latencies = []
        start = time.perf_counter()
        for i in range(1000):
            method, params = MIXED_CALLS[i % len(MIXED_CALLS)]
            began = time.perf_counter()
            response = client.post(base + method, data={k: v.format(ts=ts) for k, v in params.items()})
            latencies.append((time.perf_counter() - began) * 1000)
            assert response.json()["ok"], response.text
        elapsed = time.perf_counter() - start
    print(f"  1,000 mixed Slack calls (slack_bench_v2): {elapsed:5.2f} s   {1000 / elapsed:6.0f} calls/s   "
          f"p50 {statistics.median(latencies):5.1f} ms   p90 {percentile(latencies, 90):5.1f} ms")


ISSUE_LIST = """{ issues(first: 50) { nodes { id identifier title priority estimate createdAt
  team { id key name } state { id name type } assignee { id name email } labels { nodes { id name color } } } } }"""


def bench_linear_issue_list(info: StackInfo, store: EnvironmentStore) -> None:
    """A GraphQL list of 50 issues with nested team, state, assignee and labels (linear_expanded's 44
    issues and 6 more)."""
    env_id = store.create("linear_expanded").env_id
    url = f"{info.replica_url}/api/env/{env_id}/services/linear/graphql"
    with httpx.Client(headers={"Authorization": "lin_api_bench"}, timeout=30) as client:
        team = client.post(url, json={"query": "{ teams(first: 1) { nodes { id } } }"}).json()["data"]["teams"]["nodes"][0]
        for i in range(6):
            client.post(url, json={"query": "mutation($t: String!, $n: String!) { issueCreate(input: {teamId: $t, "
                                            "title: $n}) { success } }", "variables": {"t": team["id"], "n": f"bench {i}"}})
        first = client.post(url, json={"query": ISSUE_LIST}).json()
        assert len(first["data"]["issues"]["nodes"]) == 50, first
        latencies = []
        for _ in range(100):
            began = time.perf_counter()
            assert "errors" not in client.post(url, json={"query": ISSUE_LIST}).json()
            latencies.append((time.perf_counter() - began) * 1000)
    print(f"  issues(first: 50) with team, state, assignee, labels: median "
          f"{statistics.median(latencies):6.1f} ms   p90 {percentile(latencies, 90):6.1f} ms   (n={len(latencies)})")


def bench_diff_after_changes(store: EnvironmentStore) -> None:
    """Diff time once an environment has 1,000 changes (inserts, updates and deletes)."""
    env_id = store.create("slack_bench_v2").env_id
    with store.open(env_id, write=True) as state:
        for message in state.rows("messages"):  # the 116 seeded messages
            state.update("messages", {**message, "message_text": "edited"})
        for member in state.rows("channel_members"):  # 62
            state.delete("channel_members", member)
        for i in range(822):
            state.insert("messages", {"message_id": f"1800000000.{i:06d}", "channel_id": "C01ABCD1234",
                                      "user_id": "U01AGENBOT9", "message_text": f"bench {i}"})
    times = []
    for _ in range(20):
        start = time.perf_counter()
        diff = store.diff(env_id)
        times.append((time.perf_counter() - start) * 1000)
    changes = len(diff.inserts) + len(diff.updates) + len(diff.deletes)
    print(f"  diff with {changes} changes (slack_bench_v2)   median {statistics.median(times):6.1f} ms   (n={len(times)})")


def bench_detour_run(state: StatePaths, env_id: str, running: bool) -> None:
    """Wall time of the `detour run` command. With a stack running, a plain run is one request
    to it (detour.console); without one, the CLI starts an embedded stack."""
    with tempfile.TemporaryDirectory(prefix="detour-bench-run-") as folder:
        script = Path(folder, "trivial.py")  # outside $DETOUR_HOME, which sandboxes never see
        script.write_text("print('ok')\n")
        env = os.environ | {"DETOUR_HOME": str(state.home)}
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
    """20 containers at once, each in its own environment, each making 10 calls."""
    sandbox = docker_sandbox(state)
    if sandbox is None:
        return
    from sandbox.languages import command_for
    program = program_file("ten.py", calls_program(10))
    store = EnvironmentStore(state)
    for rounds in range(2):
        envs = [store.create("slack_default").env_id for _ in range(20)]
        started = time.perf_counter()
        with ThreadPoolExecutor(20) as pool:
            results = list(pool.map(lambda env: run_in_environment(
                state, info, env, sandbox, command_for(program, sandbox.runtime), program=program), envs))
        elapsed = time.perf_counter() - started
        assert all(r.exit_code == 0 for r in results), [r.stderr for r in results if r.exit_code][:1]
        print(f"  20 containers x 10 calls: {elapsed:5.2f} s wall   {20 / elapsed:5.1f} sandboxes/s   "
              f"{200 / elapsed:5.0f} req/s   run median {statistics.median(r.duration_ms for r in results):6.0f} ms")


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
    python = agentdiff_python()
    done = subprocess.run([str(python), "-c", SDK_TIMING, info.replica_url, str(runs)], capture_output=True,
                          text=True, env={"PATH": f"{python.parent}:/usr/bin:/bin"}, check=True)
    print(f"  agent-diff PythonExecutorProxy   {spread([float(t) for t in done.stdout.split()])}")


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="detour-bench-") as tmp:
        state = StatePaths(Path(tmp)).ensure()
        store = EnvironmentStore(state)
        print("environment creation")
        bench_environment_creation(store)
        bench_postgres_creation(state)
        bench_diff_after_changes(store)
        env_id = store.create("slack_default").env_id
        with Stack(state) as info:
            state.stack_file.write_text(info.model_dump_json())
            print("replicas: a mixed Slack script, a nested Linear issue list, a busy Calendar month")
            bench_slack_mixed(info, store)
            bench_linear_issue_list(info, store)
            bench_calendar_month(info, store)
            if "--replicas-only" in sys.argv:
                return
            print("detour run wall time")
            bench_detour_run(state, env_id, running=True)
            print("executors: execute(\"print(1)\"), warm client")
            bench_executors(state, info)
            print("sandbox start")
            bench_sandbox_start(state, info, env_id)
            print("runtimes: detour's own versus a user's venv")
            bench_runtime_start(state, info, env_id)
            print("docker backend: 20 concurrent sandboxes")
            bench_concurrent_containers(state, info)
            print("audit capture through the proxy: off, headers, bodies (auth.test, HTTPS keep-alive)")
            bench_capture(state, info, store)
            print("from inside a namespace sandbox: regular versus transparent")
            bench_transparent_vs_regular(state, info, env_id)
            print("one agent program, 50 replica calls: proxy mode versus rewrite mode")
            bench_modes(state, info)
            state.stack_file.unlink()
        if "--replicas-only" not in sys.argv:
            print("replica call auth.test (HTTP keep-alive; through the proxy: HTTPS via CONNECT)")
            bench_proxy_hop(state, env_id)
            bench_embedded_start(state)
            bench_detour_run(state, env_id, running=False)
            print("two replica servers and two proxies on one Postgres (auth.test, HTTPS keep-alive)")
            bench_two_nodes()
            print("soak: one proxy, 100,000 requests")
            soak(state)


if __name__ == "__main__":
    main()
