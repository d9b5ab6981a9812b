"""`import detour`: a long-lived client over one stack, and executors with AgentDiff's
`execute(code) -> dict` contract whose calls run in sandboxes, in proxy mode, with a
workspace that persists from one call to the next."""

import json
import os

import psutil
import pytest

import detour
from detour_core.errors import DetourError
from sandbox import netns
from tests.conftest import BACKENDS, needs_namespaces
from tests.e2e.test_cli import Server

POST = """import requests
done = requests.post("https://slack.com/api/chat.postMessage", headers={"Authorization": "Bearer xoxb-1"},
                     json={"channel": "general", "text": "from the python api"}).json()
print(done["ok"])
"""
WRITE_THEN_READ = {
    "python": ("open('notes.txt', 'w').write('kept')", "print(open('notes.txt').read())"),
    "bash": ("echo kept > notes.txt", "cat notes.txt"),
    "typescript": ("import { writeFileSync } from 'node:fs'; writeFileSync('notes.txt', 'kept');",
                   "import { readFileSync } from 'node:fs'; const s: string = readFileSync('notes.txt', 'utf8'); console.log(s);"),
}
SLACK_CALL = {
    "python": "import requests\nprint(requests.post('https://slack.com/api/auth.test', headers={'Authorization': 'Bearer xoxb-1'}).json()['user_id'])",
    "bash": "curl -s -X POST https://slack.com/api/auth.test -H 'Authorization: Bearer xoxb-1' | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"user_id\"])'",
    "typescript": "const r = await fetch('https://slack.com/api/auth.test', {method: 'POST', headers: {Authorization: 'Bearer xoxb-1'}});"
                  " const body: {user_id: string} = await r.json(); console.log(body.user_id);",
}


@pytest.fixture(scope="module")
def client(api_client):
    return api_client


@pytest.mark.parametrize("backend", BACKENDS)
def test_run_code_and_files_through_the_proxy(client, backend, tmp_path):
    env = client.environments.create("slack_default")
    result = client.run(POST, env=env.env_id, backend=backend)
    assert (result.exit_code, result.stdout, result.backend) == (0, "True\n", backend)
    assert [(r.host, r.decision) for r in result.requests] == [("slack.com", "routed")]
    assert [row["message_text"] for row in client.environments.diff(env.env_id).inserts] == ["from the python api"]
    script = tmp_path / "agent.ts"
    script.write_text("const r = await fetch('https://slack.com/api/api.test'); console.log((await r.json()).ok);")
    from_file = client.run(script, env=env.env_id, backend=backend)
    assert (from_file.exit_code, from_file.stdout.strip()) == (0, "true"), from_file.stderr


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("language", ["python", "bash", "typescript"])
def test_an_executor_keeps_its_workspace_and_reaches_the_replicas(client, backend, language):
    with client.executor(language, backend=backend) as ex:
        write, read = WRITE_THEN_READ[language]
        assert ex.execute(write) == {"status": "success", "stdout": "", "stderr": "", "exit_code": 0}
        assert ex.execute(read)["stdout"].strip() == "kept"
        called = ex.execute(SLACK_CALL[language])
        assert called["stdout"].strip() == "U01AGENBOT9", called
        assert [r.decision for r in ex.last.requests] == ["routed"]
        assert (ex.workspace / "notes.txt").read_text().strip() == "kept"
        workspace = ex.workspace
    assert not workspace.exists()  # the executor made it, so it goes with it


def test_executor_failures_come_back_in_agentdiffs_shape(client):
    from sandbox.base import Limits
    with client.executor("python", limits=Limits(timeout_s=2)) as ex:
        failed = ex.execute("import sys; print('partial'); sys.exit(3)")
        assert failed == {"status": "error", "stdout": "partial\n", "stderr": "", "exit_code": 3}
        assert "NameError" in ex.execute("undefined_name")["stderr"]
        slow = ex.execute("import time; time.sleep(30)")
        assert slow["status"] == "error" and slow["error"] == "killed: timeout limit"


def test_a_workspace_the_caller_names_stays_and_is_shared(client, tmp_path):
    shared = tmp_path / "workspace"
    env = client.environments.create("slack_default").env_id
    with client.executor("bash", env=env, workspace=shared) as first:
        first.execute("echo 1 > counter")
    with client.executor("python", env=env, workspace=shared) as second:
        assert second.execute("print(int(open('counter').read()) + 1)")["stdout"] == "2\n"
    assert (shared / "counter").read_text() == "1\n"


@needs_namespaces
def test_an_executor_holds_one_network_and_removes_it_on_close(client):
    def ours() -> set[str]:
        """This process's sandboxes: the other worker's, made meanwhile, are not this test's."""
        return {sid for sid in netns.known_sandboxes() if netns.owner(sid) == os.getpid()}

    before = ours()
    with client.executor("bash", backend="namespace") as ex:
        for _ in range(3):
            assert ex.execute("curl -s -o /dev/null -w '%{http_code}' https://slack.com/api/api.test")["stdout"] == "200"
        held = ours() - before
        assert len(held) == 1  # three runs, one network
        # Code that ignores the proxy variables is still captured, and the host is denied.
        blocked = ex.execute("curl -s -o /dev/null -w '%{http_code}' --noproxy '*' --max-time 3 http://elsewhere.example/")
        assert blocked["stdout"] == "403"
        assert [(r.mode, r.decision) for r in ex.last.requests] == [("transparent", "denied")]
    assert netns.known_sandboxes() & held == set()


def test_environments_templates_and_checks(client):
    assert {"slack_default", "linear_default"} <= set(client.templates())
    env = client.environments.create("slack_default")
    assert env.env_id in [e.env_id for e in client.environments.list()]
    client.run(POST, env=env.env_id, backend="process")
    spec = {"assertions": [{"diff_type": "added", "entity": "messages",
                            "where": {"message_text": {"contains": "python api"}}, "expected_count": 1}]}
    assert [r.passed for r in client.check(env.env_id, spec)] == [True]
    assert [r.passed for r in client.check(env.env_id, {**spec, "assertions": [
        {**spec["assertions"][0], "expected_count": 2}]})] == [False]
    client.environments.delete(env.env_id)
    with pytest.raises(DetourError):
        client.environments.get(env.env_id)


def test_bad_input_gets_clear_errors(client, tmp_path):
    with pytest.raises(DetourError, match="unknown language 'cobol'"):
        client.run("x", language="cobol", backend="process")
    with pytest.raises(DetourError, match="no such file"):
        client.run(tmp_path / "missing.py", backend="process")
    with pytest.raises(DetourError, match="inside detour's state"):
        client.executor("bash", backend="process", workspace=client.state.home / "w").execute("true")


def test_a_client_uses_a_running_serve_or_starts_and_stops_its_own(tmp_path):
    home = tmp_path / "home"
    def alive() -> set[int]:
        return {p.pid for p in psutil.Process().children(recursive=True) if p.status() != psutil.STATUS_ZOMBIE}

    def pids(stack) -> dict[str, int]:
        return {name: proc.pid for name, proc in stack.processes.items()}

    # The stack's own processes, by name: counting this process's children would also count what
    # other tests of this worker left working in the background (a warm interpreter, a pool filling).
    own = detour.Client(home=home, backend="process")
    assert own.run("print(6 * 7)").stdout == "42\n"
    stack = own._stack
    assert stack is not None
    started = pids(stack)
    assert set(started) == {"replicas", "proxy", "dns"} and set(started.values()) <= alive()
    assert own.run("print(7 * 7)").stdout == "49\n"
    assert own._stack is stack and pids(stack) == started  # one stack for both runs
    own.close()
    assert alive() & set(started.values()) == set()

    server = Server(home)
    server.start()
    try:
        served = json.loads((home / "stack.json").read_text())
        with detour.Client(home=home, backend="process") as c:
            result = c.run("print('via serve')")
            assert c.stack.pid == served["pid"] and c._stack is None
            assert result.stdout == "via serve\n"
    finally:
        server.stop()
