"""Agents bring their own runtime: a user's venv or node_modules, detour's own runtime
otherwise (which has the common clients and none of detour's packages), and files named
from anywhere a user keeps them (0700 folders, relative paths, ~) on every backend."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import needs_docker, needs_namespaces
from tests.e2e.test_cli import DETOUR, Server

HOST_BACKENDS = ["process", pytest.param("namespace", marks=needs_namespaces)]
ALL_BACKENDS = [*HOST_BACKENDS, pytest.param("docker", marks=needs_docker)]
SUITE = Path(__file__).parents[1] / "fixtures" / "early-suite" / "slack_bench.json"
AGENTS = Path(__file__).parents[1] / "agents"
CLIENTS = ["requests", "httpx", "aiohttp", "slack_sdk", "openai", "anthropic"]
POST = """
from slack_sdk import WebClient
print(WebClient(token="xoxb-1").chat_postMessage(channel="random", text="from a private folder")["ok"])
"""


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    """One `detour serve` for the module: each `detour run` uses it, as a user's would."""
    home = tmp_path_factory.mktemp("runtimes") / "home"
    server = Server(home)
    server.start()
    yield home
    server.stop()


def detour(home: Path, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
           timeout: float = 180) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"} | {"DETOUR_HOME": str(home)}
    return subprocess.run([DETOUR, *args], env=base | (env or {}), capture_output=True, text=True,
                          timeout=timeout, cwd=cwd or home.parent)


def private_folder(root: Path, name: str) -> Path:
    folder = root / name
    folder.mkdir(mode=0o700)
    return folder


def private_file(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    path.chmod(0o600)
    return path


@pytest.fixture(scope="module")
def user_venv(tmp_path_factory) -> Path:
    """A real venv (from the Python detour's own venv was made from) holding a module that
    exists nowhere else."""
    venv = tmp_path_factory.mktemp("user") / "agentvenv"
    subprocess.run([sys._base_executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next(venv.glob("lib/python3*/site-packages"))
    (site / "agentonly.py").write_text("VALUE = 'from the user venv'\n")
    return venv


IMPORTS_AGENTONLY = "import agentonly, sys\nprint(agentonly.VALUE, sys.prefix)\n"


@pytest.mark.parametrize("backend", HOST_BACKENDS)
def test_a_package_only_in_the_users_venv_imports_however_the_venv_is_named(home, user_venv, tmp_path, backend):
    agent = private_file(private_folder(tmp_path, "x"), "agent.py", IMPORTS_AGENTONLY)
    ways = {
        "interpreter in the command": (["run", "--backend", backend, "--", str(user_venv / "bin" / "python"),
                                        "agent.py"], {}),
        "--python VENV": (["run", "--backend", backend, "--python", str(user_venv), "agent.py"], {}),
        "active VIRTUAL_ENV": (["run", "--backend", backend, "agent.py"], {"VIRTUAL_ENV": str(user_venv)}),
    }
    for way, (args, env) in ways.items():
        done = detour(home, *args, cwd=agent.parent, env=env)
        assert (done.returncode, done.stdout) == (0, f"from the user venv {user_venv}\n"), (way, done.stderr)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_the_default_runtime_has_the_clients_and_none_of_detours_packages(home, tmp_path, backend):
    probe = tmp_path / "probe.py"
    probe.write_text("import importlib.util as u\n"
                     f"print([m for m in {CLIENTS + ['mitmproxy', 'fastapi', 'detour']} if u.find_spec(m)])\n")
    done = detour(home, "run", "--backend", backend, str(probe))
    assert done.returncode == 0 and json.loads(done.stdout.replace("'", '"')) == CLIENTS, done.stderr
    imports = tmp_path / "imports.py"
    imports.write_text("import mitmproxy\n")
    done = detour(home, "run", "--backend", backend, str(imports))
    assert done.returncode == 1 and "ModuleNotFoundError: No module named 'mitmproxy'" in done.stderr


@pytest.mark.parametrize("backend", HOST_BACKENDS)
def test_node_modules_beside_the_entry_file_or_named(home, tmp_path, backend):
    modules = tmp_path / "app" / "node_modules" / "only-here"
    modules.mkdir(parents=True)
    (modules / "package.json").write_text('{"name": "only-here", "type": "module", "exports": "./index.js"}')
    (modules / "index.js").write_text("export const where = 'beside the agent';\n")
    agent = tmp_path / "app" / "agent.mjs"
    agent.write_text("import { where } from 'only-here';\nconsole.log(where);\n")
    done = detour(home, "run", "--backend", backend, str(agent))
    assert (done.returncode, done.stdout) == (0, "beside the agent\n"), done.stderr
    elsewhere = tmp_path / "elsewhere.mjs"
    elsewhere.write_text(agent.read_text())
    done = detour(home, "run", "--backend", backend, "--node-modules", str(modules.parent), str(elsewhere))
    assert (done.returncode, done.stdout) == (0, "beside the agent\n"), done.stderr
    done = detour(home, "run", "--backend", backend, str(elsewhere))  # detour's own packages: not this one
    assert done.returncode == 1 and "only-here" in done.stderr


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_agents_in_0700_folders_run_through_run_suite_run_and_compare(home, tmp_path, backend):
    folder = private_folder(tmp_path, "private")
    agent = private_file(folder, "agent.py", POST)
    done = detour(home, "run", "--backend", backend, "--", "python3", "agent.py", cwd=folder)
    assert (done.returncode, done.stdout) == (0, "True\n"), done.stderr
    done = detour(home, "compare", "--backend", backend, str(agent), "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["states_match"], done.stderr
    private_file(folder, "suite_agent.py", (AGENTS / "slack_early_suite.py").read_text())
    done = detour(home, "suite", "run", str(SUITE), "--backend", backend, "--test", "test_1", "--json",
                  "--agent", "python3 ~/private/suite_agent.py", env={"HOME": str(tmp_path)})
    report = json.loads(done.stdout)
    assert report["tests"][0]["passed"], report["tests"][0]["stderr_tail"]


@pytest.mark.parametrize("backend", [pytest.param("namespace", marks=needs_namespaces),
                                     pytest.param("docker", marks=needs_docker)])
def test_a_named_file_shows_itself_not_the_private_folder_around_it(home, tmp_path, backend):
    folder = private_folder(tmp_path, "private")
    private_file(folder, "secret.txt", "not for the sandbox")
    lister = private_file(folder, "ls.py", "import os\nprint(sorted(os.listdir(os.path.dirname(__file__))))\n")
    done = detour(home, "run", "--backend", backend, "--", "python3", str(lister))
    assert (done.returncode, done.stdout) == (0, "['ls.py']\n"), done.stderr


def test_bad_runtime_choices_get_clear_errors(home, tmp_path):
    (tmp_path / "a.py").write_text("print(1)")
    for args, message in [(["--python", str(tmp_path / "nope")], "no such interpreter or venv"),
                          (["--python", str(tmp_path)], "no bin/python3 in it"),
                          (["--node-modules", str(tmp_path / "nope")], "no such folder"),
                          (["--image", "busybox"], "--image is for the docker backend")]:
        done = detour(home, "run", "--backend", "process", *args, str(tmp_path / "a.py"))
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)


@pytest.fixture(scope="module")
def foreign_image(tmp_path_factory):
    """An image detour did not make for sandboxes: Debian with python3 and nothing of
    detour's (the python stage of detour's Dockerfile, from the base `images build` used). Built
    from that stage's text alone, so that the build sends no context (the wheels and node_modules
    the other stages copy) and finds the stage's layers that `images build` left."""
    from sandbox.docker import connect_engine
    from sandbox.images.build import DOCKERFILE, OFFLINE_BASE, REPO
    lines = (REPO / DOCKERFILE).read_text().splitlines()
    start = next(n for n, line in enumerate(lines) if line.startswith("FROM ") and line.endswith(" AS python"))
    end = next(n for n in range(start + 1, len(lines)) if lines[n].startswith("FROM "))
    context = tmp_path_factory.mktemp("python-stage")
    (context / "Dockerfile").write_text("\n".join([next(line for line in lines if line.startswith("ARG BASE")),
                                                  *lines[start:end]]) + "\n")
    client = connect_engine()
    tag = f"detour-test/python3:{os.getpid()}"
    client.images.build(path=str(context), tag=tag, buildargs={"BASE": OFFLINE_BASE}, rm=True)
    yield tag
    client.images.remove(tag)
    client.close()


SLACK_BY_URLLIB = """
import json, urllib.request
request = urllib.request.Request("https://slack.com/api/auth.test", headers={"Authorization": "Bearer xoxb-1"})
print(json.load(urllib.request.urlopen(request))["ok"])
"""


@needs_docker
def test_any_image_with_python3_runs_agents_with_detours_entrypoint_and_ca(home, tmp_path, foreign_image):
    agent = tmp_path / "agent.py"
    agent.write_text(SLACK_BY_URLLIB)
    for mode in ("proxy", "rewrite"):
        done = detour(home, "run", "--backend", "docker", "--image", foreign_image, "--mode", mode, str(agent))
        assert (done.returncode, done.stdout) == (0, "True\n"), (mode, done.stderr)
    done = detour(home, "run", "--backend", "docker", "--image", "detour-test/none:0", str(agent))
    assert done.returncode == 2 and "no image detour-test/none:0" in done.stderr


@needs_docker
def test_a_derived_image_has_the_users_python_and_node_packages(home, tmp_path):
    from sandbox.docker import connect_engine
    (tmp_path / "requirements.txt").write_text("tabulate\n")
    (tmp_path / "package.json").write_text('{"name": "agent", "private": true, "dependencies": {"is-number": "7.0.0"}}')
    done = detour(home, "images", "build", "--requirements", str(tmp_path / "requirements.txt"),
                  "--npm", str(tmp_path / "package.json"), timeout=600)
    assert done.returncode == 0, done.stderr
    tag = done.stdout.strip()
    try:
        (tmp_path / "agent.py").write_text("import tabulate, slack_sdk\nprint(tabulate.tabulate([[1]], tablefmt='plain'))\n")
        done = detour(home, "run", "--backend", "docker", "--image", tag, str(tmp_path / "agent.py"))
        assert (done.returncode, done.stdout) == (0, "1\n"), done.stderr
        (tmp_path / "agent.mjs").write_text("import isNumber from 'is-number';\nconsole.log(isNumber(5));\n")
        done = detour(home, "run", "--backend", "docker", "--image", tag, str(tmp_path / "agent.mjs"))
        assert (done.returncode, done.stdout) == (0, "true\n"), done.stderr
        done = detour(home, "run", "--backend", "docker", "--python", str(tmp_path), str(tmp_path / "agent.py"))
        assert done.returncode == 2 and "derive an image" in done.stderr
    finally:
        connect_engine().images.remove(tag)


def test_doctor_names_what_is_missing_and_the_apt_command_that_brings_it(home, tmp_path):
    """On a PATH with none of the tools (as on a fresh machine); nothing is installed."""
    empty = tmp_path / "bin"
    empty.mkdir()
    done = detour(home, "doctor", "--check", env={"PATH": str(empty)})
    assert "missing: nft (Debian package nftables), for namespace backend" in done.stdout
    assert "missing: dockerd (Debian package docker.io), for docker backend" in done.stdout
    command = next(line for line in done.stdout.splitlines() if line.startswith("to install them: "))
    assert "apt-get install -y -qq --no-install-recommends" in command and " bubblewrap " in command
    assert "namespace backend: unavailable (needs ip, nft, bwrap, nsenter, setpriv)" in done.stdout
    assert "languages: python, node, bash, perl (without default-jdk-headless, golang-go, ruby, php-cli, git)" \
        in done.stdout
    full = detour(home, "doctor", "--check")
    assert "languages: python, node, bash, perl, java, go, ruby, php, git\n" in full.stdout  # `make` brought them
