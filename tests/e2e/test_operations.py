"""What people do to a running detour, as the CLI answers it: a CA rotated under a running stack,
`stack status` asked often, ports that hold across a background stack's restarts, a second
server, `--only` servers, and clearing environments away (issue 41, item 5)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
import requests

from certs.authority import CertificateAuthority
from detour.background import log_file
from detour.proxy_egress import TABLE_PREFIX, nft
from detour.proxy_user import BROKERS, dead_groups
from detour.stack import free_port, running_stack, running_stacks
from detour_core.audit import AuditLog
from detour_core.paths import StatePaths
from tests.waiting import until

DETOUR = str(Path(sys.executable).parent / "detour")
SLACK_CALL = """import json, urllib.request
print(json.load(urllib.request.urlopen(urllib.request.Request(
    "https://slack.com/api/api.test", data=b"", headers={"Authorization": "Bearer xoxb-1"})))["ok"])
"""


class Home:
    """A detour home whose stacks take ports of their own (never 8080 or 8000 of a shared
    machine); whatever its commands start is stopped at the end."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.state = StatePaths(root / "home")
        ports: set[int] = set()
        self.proxy_port, self.replica_port = free_port("127.0.0.1", ports), free_port("127.0.0.1", ports)
        self.env = os.environ | {"DETOUR_HOME": str(self.state.home), "DETOUR_BACKGROUND": "on",
                                 "DETOUR_STACK_IDLE_S": "120", "DETOUR_PROXY_PORT": str(self.proxy_port),
                                 "DETOUR_REPLICA_PORT": str(self.replica_port)}
        self.servers: list[subprocess.Popen] = []

    def __call__(self, *args: str, input: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run([DETOUR, *args], env=self.env, capture_output=True, text=True, timeout=120,
                              input=input, cwd=self.root)

    def program(self, code: str, name: str = "agent.py") -> str:
        path = self.root / name
        path.write_text(code)
        return str(path)

    def serve(self, *args: str) -> subprocess.Popen:
        """`detour serve ARGS` in the foreground, once its record says it is up."""
        before = {info.pid for info in running_stacks(self.state)}
        server = subprocess.Popen([DETOUR, "serve", "--workers", "1", *args], env=self.env)
        self.servers.append(server)
        until(lambda: server.pid in {info.pid for info in running_stacks(self.state)} - before, server,
              f"detour serve {' '.join(args)} did not start", pause=0.1)
        return server

    def close(self) -> None:
        self("stack", "stop")
        for server in self.servers:
            if server.poll() is None:
                server.send_signal(signal.SIGTERM)
                server.wait(timeout=15)


@pytest.fixture
def home(tmp_path):
    h = Home(tmp_path)
    yield h
    h.close()


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    """A home whose background stack runs, for the tests that only need one running; those that
    start, restart, stop or count a stack's records have a home of their own."""
    h = Home(tmp_path_factory.mktemp("running"))
    try:
        started = h("run", "--backend", "process", h.program("print('hi')\n"))
        assert started.returncode == 0, started.stderr
        yield h
    finally:
        h.close()


def test_stack_status_and_reuse_leave_no_audit_records(home):
    program = home.program("print('hi')\n")
    for _ in range(2):
        assert home("run", "--backend", "process", program).stdout == "hi\n"
        assert "pid" in home("stack", "status").stdout
    assert AuditLog(home.state.audit_dir).all() == []


def test_a_rotated_ca_is_the_one_the_running_stack_signs_with(running):
    program = running.program(SLACK_CALL)
    first = running("run", "--backend", "process", program)
    assert first.stdout == "True\n", first.stderr
    before = running_stack(running.state)
    rotated = running("ca", "rotate")
    assert rotated.returncode == 0, rotated.stderr
    assert f"restarted the proxy of the running stack (pid {before.pid})" in rotated.stdout
    after = running("run", "--backend", "process", program)
    assert after.stdout == "True\n", after.stdout + after.stderr
    assert running_stack(running.state).pid == before.pid


def test_the_background_stack_keeps_its_ports_across_restarts_and_env_create_says_it_idles_out(home):
    program = home.program("print('hi')\n")
    assert home("run", "--backend", "process", program).returncode == 0
    first = running_stack(home.state)
    assert (first.proxy_port, first.replica_port) == (home.proxy_port, home.replica_port)
    created = home("env", "create", "--json")
    assert json.loads(created.stdout)["proxy_url"].endswith(f"@127.0.0.1:{home.proxy_port}")
    assert "background stack's" in created.stderr and "120 s unused" in created.stderr
    assert home("stack", "stop").returncode == 0
    assert home("run", "--backend", "process", program).returncode == 0
    second = running_stack(home.state)
    assert second.pid != first.pid and second.proxy_port == home.proxy_port, log_file(home.state).read_text()[-3000:]


def test_serve_beside_a_background_stack_names_the_way_to_stop_it(running):
    assert running("run", "--backend", "process", running.program("print('hi')\n")).returncode == 0
    refused = running("serve")
    assert refused.returncode != 0 and "detour stack stop" in refused.stderr, refused.stderr


def test_only_servers_are_recorded_shown_and_used_by_runs(home):
    home.serve("--only", "replicas")
    shown = home("stack", "status").stdout
    assert "detour serve --only replicas" in shown and f"replicas http://127.0.0.1:{home.replica_port}" in shown
    proxy = home.serve("--only", "proxy", "--replicas", f"127.0.0.1:{home.replica_port}")
    assert f"detour serve --only proxy, pid {proxy.pid}: proxy 127.0.0.1:{home.proxy_port}" in home("stack", "status").stdout
    ran = home("run", "--backend", "process", home.program(SLACK_CALL))
    assert ran.stdout == "True\n", ran.stderr
    assert not home.state.stack_file.exists()  # no background stack: the run went through the proxy server
    stopped = home("stack", "stop")
    assert stopped.stdout.count("stopped stack") == 2 and running_stacks(home.state) == []


def test_stack_stop_returns_once_the_server_has_ended_and_left_nothing(home):
    """"stopped" means the server's process has ended, its proxy user's table, broker socket and
    cgroups gone with it: a signal sent on the word used to cut that clean-up short."""
    server = home.serve()
    uid = (home.state.home / "proxy.uid").read_text() if (home.state.home / "proxy.uid").exists() else None
    stopped = home("stack", "stop")
    assert stopped.returncode == 0 and stopped.stdout == f"stopped stack {server.pid}\n", stopped.stderr
    assert server.poll() == 0
    if uid is not None:  # root, where the proxy runs as a user of its own
        assert list(BROKERS.glob(f"{uid}-*.sock")) == [] and list(dead_groups(uid)) == []
        assert f"{TABLE_PREFIX}{uid}" not in nft("list", "tables", "inet").stdout


def test_run_rm_deletes_the_environment_it_made(running):
    ran = running("run", "--rm", "--json", "--backend", "process", running.program("print('hi')\n"))
    assert ran.returncode == 0, ran.stderr
    env_id = json.loads(ran.stdout)["env_id"]
    assert env_id not in running("env", "list").stdout
    kept = json.loads(running("env", "create", "--json").stdout)["env_id"]
    refused = running("run", "--rm", "--env", kept, running.program("print('hi')\n"))
    assert refused.returncode == 2 and "--rm" in refused.stderr and kept in running("env", "list").stdout


def test_env_delete_all_and_older_than(home):
    def create() -> str:
        return json.loads(home("env", "create", "--json").stdout)["env_id"]

    def deleted(*args: str) -> list[str]:
        done = home("env", "delete", *args)
        assert done.returncode == 0, done.stderr
        return sorted(line.removeprefix("deleted ") for line in done.stdout.splitlines() if line.startswith("deleted "))

    made = sorted(create() for _ in range(2))
    assert home("env", "delete", "--older-than", "1h").stdout == "no environment to delete\n"
    assert deleted("--older-than", "0s") == made
    more = sorted(create() for _ in range(2))
    assert deleted("--all") == more and home("env", "list").stdout == ""
    bad = home("env", "delete", "--older-than", "soon")
    assert bad.returncode == 2 and "(90s, 30m, 12h, 7d)" in bad.stderr
    assert home("env", "delete").returncode == 2


def test_the_platform_api_gives_its_caller_an_environments_secret_and_proxy_url(home):
    home.serve()
    url, key = running_stack(home.state).replica_url, home("api-key").stdout.strip()
    create = f"{url}/api/platform/environments"
    assert requests.post(create, json={"template": "slack_default"}).status_code == 401
    made = requests.post(create, json={"template": "slack_default"}, headers={"X-API-Key": key})
    assert made.status_code == 201, made.text
    body = made.json()
    proxy = f"http://{body['env_id']}:{body['secret']}@127.0.0.1:{home.proxy_port}"
    assert body["proxy_url"] == proxy  # checked before use: a request never leaves loopback
    access = requests.get(f"{create}/{body['env_id']}/access", headers={"X-API-Key": key})
    assert access.json() == {"secret": body["secret"], "proxy_url": proxy}
    assert requests.get(f"{create}/{body['env_id']}/access").status_code == 401
    ca = str(CertificateAuthority(home.state).ensure().cert)
    answer = requests.post("https://slack.com/api/api.test", proxies={"https": proxy}, verify=ca,
                           headers={"Authorization": "Bearer xoxb-1"})
    assert answer.json()["ok"] is True

    page = requests.get(f"{url}/api/platform/docs")
    assert page.status_code == 200 and "/openapi.json" in page.text
    schema = requests.get(f"{url}/openapi.json").json()
    assert "/api/platform/environments/{env_id}/access" in schema["paths"]
    models = schema["components"]["schemas"]
    assert all(field.get("description") for field in models["EnvironmentAccess"]["properties"].values())
    assert {"secret", "proxy_url"} <= set(models["EnvironmentCreated"]["properties"])


def test_serve_takes_the_audit_segment_size(home):
    """The README's `detour serve --audit-segment-mb`: the proxy starts with it (an option it did
    not know would stop it)."""
    server = home.serve("--audit-segment-mb", "1")
    proxies = [p.cmdline() for p in psutil.Process(server.pid).children(recursive=True) if "proxy_addons" in p.cmdline()]
    assert proxies and all("detour_audit_segment_mb=1" in argv for argv in proxies)
