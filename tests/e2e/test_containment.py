"""Isolating sandboxes (namespace, docker) contain what they run and fail closed when the
proxy dies; namespace sandboxes leave nothing behind, also when the process that started
them is killed (tests/e2e/test_docker_backend.py shows the same for containers)."""

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
import time
from pathlib import Path

import pytest

from certs.authority import CertificateAuthority
from detour_core.audit import AuditLog
from detour_core.paths import StatePaths
from detour.runner import run_in_environment
from detour.stack import Stack
from mock_services.store import EnvironmentStore
from sandbox import cgroups, netns
from sandbox.base import Limits
from sandbox.docker import DockerSandbox
from sandbox.namespace import NamespaceSandbox, run_folders
from tests.conftest import ISOLATING, needs_namespaces
from tests.e2e.netlab import canary, forwarding, linked, namespace, seen
from tests.waiting import until

# Alone: it watches the host's free disk, its veths and every sandbox's leftovers.
pytestmark = [needs_namespaces, pytest.mark.exclusive]
DETOUR = str(Path(sys.executable).parent / "detour")


def resources() -> set[str]:
    return netns.known_sandboxes()


@pytest.mark.parametrize("name, code, limits, expect", [
    ("fork bomb", "bomb() { bomb | bomb & }; bomb; sleep 20", {"processes": 64, "timeout_s": 30}, "processes"),
    ("memory bomb", "python3 -c 'x = []\nwhile True: x.append(bytearray(16 << 20))'",
     {"memory_mb": 200, "timeout_s": 30}, "memory"),
    ("output flood", "yes flood", {"output_bytes": 100_000, "timeout_s": 30}, "output"),
])
@pytest.mark.parametrize("backend", ISOLATING)
def test_bombs_are_contained_and_reported(live_stack, make_env, name, code, limits, expect, backend):
    result = live_stack.run(make_env(), code, ".sh", backend=backend, limits=Limits(**limits))
    assert result.killed_reason == expect, (result.stdout[-300:], result.stderr[-300:])
    assert result.limits_via in ("cgroup v1", "cgroup v2", "rlimit+watchdog")
    after = live_stack.run(make_env(), "echo next run fine", ".sh", backend=backend)
    assert (after.exit_code, after.stdout, after.killed_reason) == (0, "next run fine\n", None)


@pytest.mark.parametrize("backend", ISOLATING)
def test_disk_fill_stops_at_the_sandbox_quota(live_stack, make_env, backend):
    free_before = os.statvfs("/").f_bavail
    code = "dd if=/dev/zero of=fill bs=1M count=2000 2>/tmp/err; echo dd=$?; grep -o 'No space left' /tmp/err; df -m ."
    result = live_stack.run(make_env(), code, ".sh", backend=backend, limits=Limits(disk_mb=32, file_size_mb=1000))
    lines = result.stdout.splitlines()
    assert lines[0] != "dd=0" and lines[1] == "No space left"
    assert lines[-1].split()[1] == "32" and lines[-1].endswith("/home/agent")  # a 32 MB tmpfs, not the host disk
    assert abs(os.statvfs("/").f_bavail - free_before) * os.statvfs("/").f_frsize < 16 << 20


def veths() -> set[str]:
    return {p.name for p in Path("/sys/class/net").iterdir() if p.name.startswith("dt")}


def test_each_run_removes_its_namespace_veth_rules_and_cgroup(live_stack, make_env):
    before, veths_before = resources(), veths()
    result = live_stack.run(make_env(), "ip -o link show | wc -l", ".sh", backend="namespace")
    assert result.exit_code == 0 and result.stdout.strip() == "2"  # lo and its veth end, nothing else
    assert result.limits_via == (cgroups.available() or "rlimit+watchdog")
    assert [sid for sid in resources() - before if netns.owner(sid) in (None, os.getpid())] == []
    deadline = time.monotonic() + 30  # the kernel frees a netns's veths in its own time, slower under load
    while veths() - veths_before:
        assert time.monotonic() < deadline, "a veth outlived its sandbox"
        time.sleep(0.05)


@pytest.mark.parametrize("backend", ISOLATING)
def test_proxy_killed_mid_run_fails_closed(tmp_path, backend):
    state = StatePaths(tmp_path / "home").ensure()
    env = EnvironmentStore(state).create("slack_default").env_id
    program = tmp_path / "loop.sh"
    program.write_text("""
for i in $(seq 1 10); do
  curl -s --max-time 2 --noproxy '*' -o /dev/null -w 't%{http_code} ' -H 'Authorization: Bearer x' https://slack.com/api/auth.test
  curl -s --max-time 2 -o /dev/null -w 'r%{http_code}\\n' -H 'Authorization: Bearer x' https://slack.com/api/auth.test
  sleep 0.3
done
""")
    log = tmp_path / "canary.log"
    stack = Stack(state)
    with forwarding(), namespace() as inet, linked(inet, "10.214.2.1", "10.214.2.2"), \
            canary(inet, log, "--tcp", "0.0.0.0:443", "--tcp", "0.0.0.0:80"), stack as info, ExitStack() as cleanup:
        with ThreadPoolExecutor(1) as pool:
            # the docker run takes a container its pool made ahead (the path most runs take then)
            trust = CertificateAuthority(state).ensure().trust_files()
            sandbox = NamespaceSandbox(state) if backend == "namespace" else DockerSandbox(state, pool=1, trust=trust)
            if backend == "docker":
                cleanup.callback(sandbox.close)
                assert sandbox.pool.wait_full(120)
            running = pool.submit(run_in_environment, state, info, env, sandbox, ["/bin/bash", "loop.sh"],
                                  program=program)
            # Two rounds logged: the first round's answers reached curl before the second began (the
            # audit line of a request can precede the end of its answer, so one round is not enough).
            deadline = time.monotonic() + 20
            while len(AuditLog(state.audit_dir).read(env)[0]) < 4:
                assert time.monotonic() < deadline
                time.sleep(0.05)
            stack.processes["proxy"].kill()
            result = running.result()
        lines = result.stdout.split("\n")
        assert lines[0] == "t200 r200"
        assert all(line in ("t000 r000", "") for line in lines[2:])  # nothing answered once the proxy was gone
        assert seen(log) == []


def test_doctor_cleans_up_after_a_killed_run(tmp_path):
    env = os.environ | {"DETOUR_HOME": str(tmp_path / "home")}
    run = subprocess.Popen([DETOUR, "run", "--backend", "namespace", "--", "sleep", "60"], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        mine = until(lambda: [sid for sid in resources() if netns.owner(sid) == run.pid
                              and Path(f"/run/netns/detour-{sid}").exists() and run_folders(sid)],
                     run, "sandbox never appeared")
    finally:
        run.kill()
        run.wait()
    [sid] = mine
    check = subprocess.run([DETOUR, "doctor", "--check"], env=env, capture_output=True, text=True)
    assert check.returncode == 1 and f"left over: sandbox {sid}" in check.stdout
    fix = subprocess.run([DETOUR, "doctor"], env=env, capture_output=True, text=True)
    assert f"removed: sandbox {sid}" in fix.stdout
    assert sid not in resources()
    assert not Path(f"/run/netns/detour-{sid}").exists() and run_folders(sid) == []
    assert subprocess.run([DETOUR, "doctor", "--check"], env=env, capture_output=True).returncode == 0


def test_cpu_time_counts_the_whole_group(live_stack, make_env):
    """Busy processes of 0.5 s each stay under RLIMIT_CPU (1 s), but their sum passes the group's 1 s."""
    code = "for round in $(seq 20); do for i in 1 2; do timeout 0.5 sh -c 'while :; do :; done' & done; wait; done"
    result = live_stack.run(make_env(), code, ".sh", backend="namespace", limits=Limits(cpu_s=1, timeout_s=30))
    if result.limits_via == "rlimit+watchdog":
        pytest.skip("no cgroup CPU accounting on this machine")
    assert result.killed_reason == "cpu"
