"""compose.yaml end to end: up, an agent in a sandbox container changes its environment's
replica state through the proxy, code that skips the proxy gets nowhere, and down leaves
nothing running."""

import json
import os
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import needs_docker

pytestmark = needs_docker
REPO = Path(__file__).resolve().parents[2]


def compose_command() -> list[str] | None:
    """`docker compose` (v2) where the plugin exists, else Debian's docker-compose 1.29."""
    if subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        return ["docker", "compose"]
    return ["docker-compose"] if shutil.which("docker-compose") else None


COMPOSE = compose_command()


class Project:
    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, *args: str, stdin: str | None = None, env: dict | None = None,
                 check: bool = True) -> subprocess.CompletedProcess:
        done = subprocess.run([*COMPOSE, "-p", self.name, *args], cwd=REPO, input=stdin, capture_output=True,
                              text=True, timeout=180, env=env)
        if check:
            assert done.returncode == 0, done.stderr
        return done

    def leftovers(self) -> list[str]:
        label = f"label=com.docker.compose.project={self.name}"
        found = []
        for kind in ("ps -aq", "network ls -q", "volume ls -q"):
            out = subprocess.run(["docker", *kind.split(), "--filter", label], capture_output=True, text=True).stdout
            found += out.split()
        return found


@pytest.fixture(scope="module")
def project():
    if COMPOSE is None:
        pytest.fail("neither `docker compose` nor docker-compose is installed (.ci/run installs docker-compose)")
    from sandbox.docker import connect_engine
    from sandbox.images.build import missing_images
    if missing := missing_images(connect_engine()):
        pytest.fail(f"images missing: {', '.join(missing)}: run `detour images build`")
    up = Project(f"detour-test-{uuid.uuid4().hex[:6]}")
    try:
        up("up", "-d")
        deadline = time.monotonic() + 60
        probe = "import socket; socket.create_connection(('127.0.0.1', 8080), 1)"
        while up("exec", "-T", "proxy", "python3", "-c", probe, check=False).returncode != 0:
            assert time.monotonic() < deadline, up("logs", check=False).stdout
            time.sleep(0.5)
        yield up
    finally:
        up("down", "-v", "--remove-orphans", check=False)


def agent(project: Project, env_id: str, tmp_path: Path, stdin: str, *argv: str) -> subprocess.CompletedProcess:
    variables = tmp_path / f"{env_id}.env"
    variables.write_text(project("exec", "-T", "proxy", "detour", "env", "vars", env_id).stdout)
    return project("run", "--rm", "-T", "agent", *argv, stdin=stdin, check=False,
                   env=os.environ | {"DETOUR_AGENT_ENV": str(variables)})


def test_an_agent_changes_its_environment_through_the_proxy(project, tmp_path):
    env_id = json.loads(project("exec", "-T", "proxy", "detour", "env", "create", "--json").stdout)["env_id"]
    mark = f"compose-{uuid.uuid4().hex[:8]}"
    code = f"""
import requests
r = requests.post("https://slack.com/api/chat.postMessage", headers={{"Authorization": "Bearer x"}},
                  json={{"channel": "C01ABCD1234", "text": "{mark}"}})
print(r.status_code, r.json()["message"]["text"])
"""
    done = agent(project, env_id, tmp_path, code, "python3", "-")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"200 {mark}"
    diff = json.loads(project("exec", "-T", "proxy", "detour", "env", "diff", env_id).stdout)
    assert [row["message_text"] for row in diff["inserts"]] == [mark]
    audit = project("exec", "-T", "proxy", "detour", "logs", "--env", env_id, "--json").stdout
    assert [json.loads(line)["decision"] for line in audit.splitlines()] == ["routed"]


def test_code_that_skips_the_proxy_gets_nowhere(project, tmp_path):
    env_id = json.loads(project("exec", "-T", "proxy", "detour", "env", "create", "--json").stdout)["env_id"]
    code = """
c() { curl -s -o /dev/null --max-time 5 --noproxy '*' "$@"; echo "rc=$?"; }
c https://slack.com/api/auth.test
c http://replicas:8000/api/platform/health
c http://proxy:8080/
"""
    done = agent(project, env_id, tmp_path, code, "bash", "-s")
    lines = done.stdout.splitlines()
    assert lines[0] != "rc=0" and lines[1] != "rc=0"  # no route out; the replicas are on another network
    assert lines[2] == "rc=0"                          # the proxy is the one peer
    diff = json.loads(project("exec", "-T", "proxy", "detour", "env", "diff", env_id).stdout)
    assert diff["inserts"] == []


def test_down_leaves_nothing_running(project):
    assert project.leftovers()
    project("down", "-v", "--remove-orphans")
    assert project.leftovers() == []
