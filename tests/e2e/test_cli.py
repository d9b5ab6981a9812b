"""The `detour` command as a user runs it: serve, env, run, logs, and its errors."""

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from detour.stack import free_port
from tests.conftest import NAMESPACE_MISSING
from tests.waiting import until

DETOUR = str(Path(sys.executable).parent / "detour")


@pytest.fixture
def home(tmp_path) -> Path:
    return tmp_path / "home"


def detour(home: Path, *args: str, check: bool = True, timeout: float = 120) -> subprocess.CompletedProcess:
    proc = subprocess.run([DETOUR, *args], env=os.environ | {"DETOUR_HOME": str(home)},
                          capture_output=True, text=True, timeout=timeout, cwd=home.parent)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


class Server:
    def __init__(self, home: Path, *options: str) -> None:
        self.home = home
        self.options = options
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        ports: set[int] = set()
        self.proc = subprocess.Popen(
            [DETOUR, "serve", "--proxy-port", str(free_port("127.0.0.1", ports)),
             "--replica-port", str(free_port("127.0.0.1", ports)), *self.options],
            env=os.environ | {"DETOUR_HOME": str(self.home)})
        until((self.home / "stack.json").exists, self.proc, "detour serve did not start")

    def platform(self) -> tuple[str, str]:
        """The replica server's URL and the API key, as a platform API caller needs them."""
        from detour.stack import StackInfo
        url = StackInfo.model_validate_json((self.home / "stack.json").read_text()).replica_url
        return url, detour(self.home, "api-key").stdout.strip()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=15)


@contextlib.contextmanager
def serving(home: Path, *options: str) -> Iterator[Server]:
    """`detour serve` on `home` for the block's length, stopped also when the block fails."""
    server = Server(home, *options)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def server(home):
    s = Server(home)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def served_home(tmp_path_factory) -> Iterator[Path]:
    """A home with `detour serve` running, for the tests of what a run reports, whichever stack
    runs it (those of serve itself and of the embedded stack have their own)."""
    with serving(tmp_path_factory.mktemp("served") / "home") as server:
        yield server.home


def write(home: Path, name: str, code: str) -> str:
    home.parent.joinpath(name).write_text(code)
    return name


POST = """
from slack_sdk import WebClient
print(WebClient(token="xoxb-1").chat_postMessage(channel="random", text="survives restarts")["ok"])
"""
READ = """
from slack_sdk import WebClient
print([m["text"] for m in WebClient(token="xoxb-1").conversations_history(channel="random")["messages"]][0])
"""


def test_environments_and_state_survive_a_restart_of_serve(home, server):
    server.start()
    env = json.loads(detour(home, "env", "create", "--template", "slack_default", "--json").stdout)
    assert env["proxy_url"].startswith(f"http://{env['env_id']}:{env['secret']}@127.0.0.1:")
    run = detour(home, "run", "--env", env["env_id"], write(home, "post.py", POST))
    assert run.stdout.strip() == "True"
    server.stop()
    assert not (home / "stack.json").exists()

    server.start()
    assert env["env_id"] in detour(home, "env", "list").stdout
    assert detour(home, "run", "--env", env["env_id"], write(home, "read.py", READ)).stdout.strip() == "survives restarts"
    diff = json.loads(detour(home, "env", "diff", env["env_id"]).stdout)
    assert [i["message_text"] for i in diff["inserts"]] == ["survives restarts"]
    logs = detour(home, "logs", "--env", env["env_id"], "--json").stdout.splitlines()
    assert len(logs) == 2 and all(json.loads(line)["decision"] == "routed" for line in logs)


def test_with_serve_running_a_plain_run_is_one_request_to_the_stack(home, server, tmp_path):
    """The quick path imports no typer: with typer made unimportable, a plain `run FILE` still
    works (the stack ran it), and a run with an option the quick path leaves alone fails."""
    server.start()
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    (blocked / "typer.py").write_text("raise ImportError('typer is blocked in this test')")
    program = home.parent / write(home, "post.py", POST)

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([DETOUR, "run", *args], capture_output=True, text=True, timeout=120, cwd=home.parent,
                              env=os.environ | {"DETOUR_HOME": str(home), "PYTHONPATH": str(blocked)})

    quick = run("--backend", "process", "--json", str(program))
    assert quick.returncode == 0, quick.stderr
    result = json.loads(quick.stdout)
    assert (result["stdout"], result["backend"], [r["decision"] for r in result["requests"]]) == (
        "True\n", "process", ["routed"])
    text = run("--backend", "process", "--env", result["env_id"], str(program))
    assert text.stdout == "True\n" and text.stderr.startswith(f"detour: env {result['env_id']}, exit 0, ")
    assert "requests: 1 routed; environment since creation: 2 inserts" in text.stderr
    full = run("--timeout", "30", str(program))
    assert full.returncode != 0 and "typer is blocked" in full.stderr  # the full CLI, as the control
    missing = detour(home, "run", "--env", "nope", str(program), check=False)
    assert (missing.returncode, missing.stderr.strip()) == (1, "detour: no environment 'nope'")


def test_run_without_a_server_starts_an_embedded_stack_and_stops_it(home):
    run = detour(home, "run", "--template", "slack_default", "--json", write(home, "post.py", POST))
    result = json.loads(run.stdout)
    assert result["exit_code"] == 0 and result["stdout"].strip() == "True"
    assert result["backend"] == ("process" if NAMESPACE_MISSING else "namespace")  # what auto picks
    assert len(result["diff"]["inserts"]) == 1
    assert [r["decision"] for r in result["requests"]] == ["routed"]
    assert not (home / "stack.json").exists()


def test_command_mode_runs_a_command_line(served_home):
    run = detour(served_home, "run", "--json", "--", "curl", "-s", "-H", "Authorization: Bearer x",
                 "https://slack.com/api/auth.test")
    assert json.loads(json.loads(run.stdout)["stdout"])["ok"] is True


@pytest.mark.parametrize("flags, code, reason", [
    (["--timeout", "1"], "while True: pass", "timeout"),
    (["--memory-mb", "100"], "x = []\nwhile True: x.append(bytearray(8 << 20))", "memory"),
    (["--output-bytes", "2000"], "while True: print('y' * 100)", "output"),
])
def test_caps_show_in_the_result(served_home, flags, code, reason):
    run = detour(served_home, "run", "--json", *flags, write(served_home, "cap.py", code), check=False)
    assert run.stdout, run.stderr
    result = json.loads(run.stdout)
    assert result["killed_reason"] == reason
    assert result["timed_out"] is (reason == "timeout")
    assert run.returncode == result["exit_code"] == 137


@pytest.mark.parametrize("args, message, code", [
    (["env", "create", "--template", "no_such_template"], "unknown template 'no_such_template'; known templates:", 2),
    (["env", "create", "--id", "bad id!"], "invalid environment id", 2),
    (["env", "diff", "env-missing"], "no environment 'env-missing'", 1),  # looked, found nothing
    (["run", "--env", "bad id!", "--", "true"], "invalid environment id", 2),
    (["run", "--env", "env-missing", "--", "true"], "no environment 'env-missing'", 1),
    (["run", "does_not_exist.py"], "no such file: does_not_exist.py", 2),
    (["run", "--env", "a", "--template", "b", "--", "true"], "not both", 2),
])
def test_bad_input_gets_a_clear_error(home, args, message, code):
    proc = detour(home, *args, check=False)
    assert proc.returncode == code
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_ca_commands(home):
    cert = detour(home, "ca", "path").stdout  # one path and nothing else: `--cacert "$(detour ca path)"`
    assert cert.endswith("detour-ca.pem\n") and Path(cert.rstrip("\n")).is_file()
    bundle = detour(home, "ca", "path", "--bundle").stdout.rstrip("\n")
    assert Path(bundle).is_file() and bundle != cert.rstrip("\n") and ".key" not in cert + bundle
    before = detour(home, "ca", "show").stdout
    assert "CN=detour sandbox CA" in before
    assert "previous one" in detour(home, "ca", "rotate").stdout
    assert detour(home, "ca", "show").stdout != before


@pytest.mark.skipif(bool(NAMESPACE_MISSING), reason="the namespace backend masks /tmp and the state dir")
def test_files_a_command_names_are_visible_but_never_detours_state(home, tmp_path):
    agent = tmp_path / "agents" / "agent.py"
    agent.parent.mkdir()
    agent.write_text("print('agent ran')\n")
    ran = json.loads(detour(home, "run", "--json", "--", "python3", str(agent)).stdout)
    assert (ran["backend"], ran["exit_code"], ran["stdout"]) == ("namespace", 0, "agent ran\n")
    key = home / "signing.key"
    assert key.exists()
    refused = detour(home, "run", "--json", "--", "cat", str(key), check=False)
    assert refused.returncode == 2 and refused.stdout == ""
    assert f"{key} is inside detour's state" in refused.stderr
