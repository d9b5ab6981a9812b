"""The docker backend: hardened containers, many at once without cross-talk, and nothing
left behind, also when the detour that started them is killed.

The client matrix (test_client_matrix.py), the bypass suite (test_bypass.py) and the
containment cases (test_containment.py) run on this backend too.
"""

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sandbox import netns
from sandbox.base import Limits
from certs.authority import CertificateAuthority
from detour.runner import run_in_environment
from sandbox.docker import IMAGE_TRUST, LABEL, DockerSandbox, system_stores
from tests.conftest import needs_docker
from tests.waiting import until

# Alone: it counts every sandbox container on the engine.
pytestmark = [needs_docker, pytest.mark.exclusive]
DETOUR = str(Path(sys.executable).parent / "detour")


@pytest.fixture(scope="module")
def engine():
    from sandbox.docker import connect_engine
    client = connect_engine()
    yield client
    client.close()


def sandbox_containers(engine) -> list:
    return engine.containers.list(all=True, filters={"label": LABEL})


def test_a_container_is_hardened_as_promised(live_stack, make_env, engine):
    """Seen from the engine while the program runs, and from inside."""
    env, seen = make_env(), {}

    def inspect_while_running():
        deadline = time.monotonic() + 30
        while not (running := sandbox_containers(engine)) and time.monotonic() < deadline:
            time.sleep(0.05)
        seen.update(engine.api.inspect_container(running[0].id))

    watcher = threading.Thread(target=inspect_while_running)
    watcher.start()
    code = """
id -u
grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status | tr -s '\\t ' ' '
touch /usr/probe 2>&1 | grep -o 'Read-only file system'
touch /tmp/probe /home/agent/probe && echo writable tmpfs
ls /run/detour-ca
sleep 1
"""
    result = live_stack.run(env, code, ".sh", backend="docker", limits=Limits(memory_mb=300, processes=50))
    watcher.join()
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [
        "1000", "CapEff: 0000000000000000", "CapBnd: 0000000000000000", "NoNewPrivs: 1",
        "Read-only file system", "writable tmpfs", "bundle.pem", "ca.pem"]
    host = seen["HostConfig"]
    assert (host["NetworkMode"], host["ReadonlyRootfs"], host["CapDrop"], host["SecurityOpt"], host["Privileged"]) \
        == ("none", True, ["ALL"], ["no-new-privileges"], False)
    assert (host["Memory"], host["PidsLimit"], host["NanoCpus"]) == (300 << 20, 50, 1_000_000_000)
    assert seen["Config"]["User"] == "1000"
    # The only host files inside are the CA's public ones, read-only; the key is not among them.
    trust = live_stack.state.ca_dir
    assert sorted((m["Source"], m["Destination"], m["RW"]) for m in seen["Mounts"]) == sorted([
        (str(trust / "bundle.pem"), str(IMAGE_TRUST.bundle), False),
        (str(trust / "detour-ca.pem"), str(IMAGE_TRUST.cert), False),
        *((str(host), str(inside), False) for host, inside in system_stores(CertificateAuthority(
            live_stack.state).ensure().trust_files()))])  # the system store with the CA, where each distribution has it


def test_twenty_sandboxes_at_once_each_in_its_own_environment(live_stack, make_env):
    envs = [make_env() for _ in range(20)]
    code = """
import os, requests
mark = os.environ["MARK"]
r = requests.post("https://slack.com/api/chat.postMessage", headers={"Authorization": "Bearer x"},
                  json={"channel": "C01ABCD1234", "text": mark})
print(r.json()["message"]["text"])
"""
    program = live_stack.scripts / "twenty.py"
    program.write_text(code)
    sandbox = live_stack.sandbox("docker")
    marks = {env: f"m-{uuid.uuid4().hex[:8]}" for env in envs}

    def one(env):
        from sandbox.languages import command_for
        return run_in_environment(live_stack.state, live_stack.info, env, sandbox,
                                  command_for(program, sandbox.runtime), program=program, task={"MARK": marks[env]})

    with ThreadPoolExecutor(20) as pool:
        results = list(pool.map(one, envs))
    for env, result in zip(envs, results):
        assert (result.exit_code, result.stdout) == (0, marks[env] + "\n"), result.stderr
        assert [r.env_id for r in result.requests] == [env]
        assert [row["message_text"] for row in live_stack.store.diff(env).inserts] == [marks[env]]


def test_runs_leave_no_container_netns_or_table(live_stack, make_env, engine):
    before = netns.known_sandboxes()
    result = live_stack.run(make_env(), "sleep 30", ".sh", backend="docker", limits=Limits(timeout_s=2))
    assert result.killed_reason == "timeout" and result.timed_out
    assert sandbox_containers(engine) == []
    assert netns.known_sandboxes() <= before


def test_doctor_removes_the_container_of_a_killed_run(tmp_path, engine):
    env = os.environ | {"DETOUR_HOME": str(tmp_path / "home")}
    run = subprocess.Popen([DETOUR, "run", "--backend", "docker", "--", "sleep", "60"], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        until(lambda: sandbox_containers(engine), run, "the run's container never appeared", pause=0.1)
        time.sleep(0.5)  # past the network's wiring
    finally:
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()
    assert [c.status for c in sandbox_containers(engine)] == ["running"]
    doctor = subprocess.run([DETOUR, "doctor"], env=env, capture_output=True, text=True, timeout=60)
    assert "removed: container detour-" in doctor.stdout, doctor.stdout + doctor.stderr
    assert sandbox_containers(engine) == []
    assert netns.leftovers() == []


def test_cli_runs_a_program_in_a_container(tmp_path):
    program = tmp_path / "hello.ts"
    program.write_text("const r = await fetch('https://slack.com/api/auth.test', {method: 'POST'});\n"
                       "const body: {ok: boolean} = await r.json();\nconsole.log(process.version.split('.')[0], body.ok);\n")
    env = os.environ | {"DETOUR_HOME": str(tmp_path / "home")}
    done = subprocess.run([DETOUR, "run", "--backend", "docker", str(program)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "v24 false\n"  # Node 24 ran TypeScript; the replica answered (not authed)
    assert "requests: 1 routed" in done.stderr


def test_a_command_naming_a_host_script_runs_a_copy_of_it(tmp_path):
    """As `detour suite run --agent "python3 agent.py"` does; detour's own files stay out."""
    agent = tmp_path / "agents" / "agent.py"
    agent.parent.mkdir()
    agent.write_text("import sys, slack_sdk\nprint(sys.argv[1], open(sys.argv[2]).read() if len(sys.argv) > 2 else '')\n")
    home = tmp_path / "home"
    env = os.environ | {"DETOUR_HOME": str(home)}
    done = subprocess.run([DETOUR, "run", "--backend", "docker", "--", "python3", str(agent), "hello"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (0, "hello \n"), done.stderr
    key = home / "ca" / "detour-ca.key"
    done = subprocess.run([DETOUR, "run", "--backend", "docker", "--", "python3", str(agent), "x", str(key)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and f"{key} is inside detour's state" in done.stderr and "PRIVATE KEY" not in done.stdout


def pooled(state, size: int) -> DockerSandbox:
    return DockerSandbox(state, pool=size, trust=CertificateAuthority(state).ensure().trust_files())


FRESH = """
test -e /tmp/used && echo used || echo fresh
touch /tmp/used
curl -s --noproxy '*' -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer x' https://slack.com/api/auth.test
"""


def test_a_pool_hands_out_fresh_containers_once_and_leaves_nothing_behind(live_stack, make_env, engine):
    """Containers made ahead: each run gets one never used before (its /tmp is new), captured as
    any run is, and removed after; what waits when the pool closes goes with its networks."""
    before = netns.known_sandboxes()
    sandbox = pooled(live_stack.state, 2)
    try:
        assert sandbox.pool.wait_full(120)
        waiting = {c.id for c in sandbox_containers(engine)}
        assert len(waiting) == 2 and all(c.status == "running" for c in sandbox_containers(engine))
        program = live_stack.scripts / "fresh.sh"
        program.write_text(FRESH)
        envs = [make_env() for _ in range(4)]
        for env in envs:
            result = run_in_environment(live_stack.state, live_stack.info, env, sandbox, ["/bin/bash", "fresh.sh"],
                                        program=program)
            assert (result.exit_code, result.stdout) == (0, "fresh\n200"), result.stderr
            assert [r.env_id for r in result.requests] == [env]
        assert waiting.isdisjoint(c.id for c in sandbox_containers(engine)), "a used container was kept"
    finally:
        sandbox.close()
    assert sandbox_containers(engine) == []
    assert netns.known_sandboxes() <= before


def test_a_run_with_its_own_limits_gets_a_container_made_for_it(live_stack, make_env, engine):
    sandbox = pooled(live_stack.state, 1)
    try:
        assert sandbox.pool.wait_full(120)
        waiting = {c.id for c in sandbox_containers(engine)}
        program = live_stack.scripts / "limits.sh"
        program.write_text("cat /sys/fs/cgroup/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids/pids.max")
        result = run_in_environment(live_stack.state, live_stack.info, make_env(), sandbox, ["/bin/bash", "limits.sh"],
                                    program=program, limits=Limits(processes=17))
        assert (result.exit_code, result.stdout.strip()) == (0, "17"), result.stderr
        assert waiting <= {c.id for c in sandbox_containers(engine)}, "the pooled one was not spent on it"
    finally:
        sandbox.close()
    assert sandbox_containers(engine) == []
