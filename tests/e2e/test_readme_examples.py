"""The shell examples of the README and of the documentation pages its content moved to, run as
a new user would: every command of their ```sh blocks that needs no Docker engine, no internet
and no long-running server runs against a home of its own and must exit 0. A synopsis line
stands for each of its forms (`A | B` alternatives of a subcommand, `[...]` left out); ENV,
NAME and HOST stand for an environment, a name and a host the test provides, and `agent.py`
for a program it writes. What cannot run here is skipped by
name below, with the reason; a command that is neither run nor listed fails the test. The
quickstart page runs on its own too, as written, with the files it shows."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from detour.stack import free_port
from detour_core.paths import StatePaths
from mock_services.store import EnvironmentNotFound, EnvironmentStore

REPO = Path(__file__).parents[2]
README = REPO / "README.md"
# The README and the site's pages that hold what it used to say (docs/guides/mcp.md, written for
# the site, is run by its own test).
PAGES = [README, *(REPO / "docs" / page for page in (
    "index.md", "quickstart.md", "architecture.md", "limits.md", "reference/benchmarks.md",
    "guides/running-agents.md", "guides/runtimes.md", "guides/environments.md", "guides/auditing.md",
    "guides/secrets.md", "guides/suites.md", "guides/evaluation.md", "guides/backends.md", "guides/python.md",
    "guides/rewrite-mode.md", "guides/agentdiff.md", "guides/scaling.md", "services/index.md",
    "services/slack.md", "services/linear.md", "services/calendar.md", "services/box.md"))]
QUICKSTART = REPO / "docs" / "quickstart.md"
BIN = Path(sys.executable).parent
PLACEHOLDERS = {"ENV": "readme-env", "NAME": "readme_name", "HOST": "api.example.test"}
AGENT = "print('hi from agent.py')\n"

# The commands this test leaves alone, as the README writes them (after a synopsis is expanded).
SKIPPED = {
    # the whole demo, the whole test suite: each minutes long, and `make test` is this suite
    "make demo": "runs the demo, minutes long",
    "make test": "runs the whole test suite",
    "pip install dist/detour-*.whl": "installs the package (tests/e2e/test_wheel.py does, in a venv of its own)",
    "python -m build --wheel client/": "builds the client's wheel (tests/e2e/test_client_anywhere.py does)",
    "pip install detour_client-*.whl": "installs the client (tests/e2e/test_client_anywhere.py does, in a venv of its own)",
    "detour doctor --install": "installs Debian packages and removes leftovers of every sandbox on the machine",
    # a long-running server (the test's commands use the background stack instead)
    "detour serve": "runs in the foreground until interrupted",
    "curl -s -X POST http://127.0.0.1:8000/api/platform/run -H \"X-API-Key: $(detour api-key)\" "
    "-H 'Content-Type: application/json' -d '{\"code\": \"print(1)\", \"language\": \"python\", "
    "\"template\": \"slack_default\", \"backend\": \"auto\"}'": "needs a server on :8000; the test's stack has ports of its own",
    # a Docker engine
    "detour run --backend auto|process|namespace|docker": "lists the backends (docker needs an engine); names no program",
    "detour images build": "builds Docker images",
    "detour run --backend docker --image \"$(detour images build --requirements requirements.txt)\" agent.py":
        "needs a Docker engine",
    "detour run --backend docker agent.py": "needs a Docker engine",
    "docker compose up -d": "needs a Docker engine",
    "ENV=$(docker compose exec -T proxy detour env create --template slack_default --json | jq -r .env_id)":
        "needs a Docker engine",
    "docker compose exec -T proxy detour env vars \"$ENV\" > agent.env": "needs a Docker engine",
    "DETOUR_AGENT_ENV=$PWD/agent.env docker compose run --rm -T agent python3 - < agent.py": "needs a Docker engine",
    "docker compose exec -T proxy detour env diff \"$ENV\"": "needs a Docker engine",
    "docker compose down -v": "needs a Docker engine",
    # files and arguments the README leaves to the reader
    "detour run --template linear_default -- curl -s https://api.linear.app/graphql ...": "`...` is the reader's query",
    "detour check --env ENV --assertions suite.json --test test_1": "needs an AgentDiff suite of the reader's",
    "detour suite run suite.json --agent \"python3 my_agent.py\"": "needs an AgentDiff suite and agent of the reader's",
    "detour run --python ~/agents/.venv agent.py": "needs the reader's venv",
    "VIRTUAL_ENV=~/agents/.venv detour run agent.py": "needs the reader's venv",
    "detour run --node-modules ~/agents/node_modules agent.mjs": "needs the reader's node_modules and agent",
    "detour run agent.ts": "needs the reader's TypeScript agent",
    "detour run -- bash ./agent.sh": "needs the reader's shell agent",
    "detour run ~/agents/agent.pl": "needs the reader's Perl agent",
    # meant inside `detour run`: on the host they would go to the internet
    "curl -s -H 'Authorization: Bearer x' https://www.googleapis.com/calendar/v3/users/me/calendarList":
        "meant inside `detour run` (on the host it would reach the internet)",
    "curl -s -H 'Authorization: Bearer x' https://api.box.com/2.0/users/me":
        "meant inside `detour run` (on the host it would reach the internet)",
    # the machine beyond this home
    "detour doctor": "removes leftovers of every sandbox on the machine, not only this home's",
}


def sh_blocks(text: str) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M)


def without_comment(line: str) -> str:
    return re.sub(r"(^|\s)#.*$", "", line).rstrip()


def lines_of(block: str) -> list[str]:
    """Commands: a trailing backslash, or an indented line of options, continues the line before."""
    commands: list[str] = []
    for raw in block.splitlines():
        line = without_comment(raw)
        if not line.strip():
            continue
        if commands and (commands[-1].endswith("\\") or re.match(r"\s+[-\[]", line)):
            commands[-1] = commands[-1].removesuffix("\\").rstrip() + " " + line.strip()
        else:
            commands.append(line.strip())
    return commands


def expand(command: str) -> list[str]:
    """`detour ca path [--bundle] | show | rotate` is `detour ca path`, `detour ca show` and
    `detour ca rotate`: optional parts left out, each alternative after the first subcommand's parent."""
    if not command.startswith("detour "):
        return [command]
    forms = [form.split() for form in re.sub(r"\s*\[[^\]]*\]", "", command).split(" | ")]
    first = forms[0]
    verb = max(i for i, word in enumerate(first) if not word.isupper() and not word.startswith("-"))
    return [" ".join(first)] + [" ".join(first[:verb] + form) for form in forms[1:]]


def commands_of(page: Path) -> list[str]:
    return [form for block in sh_blocks(page.read_text()) for line in lines_of(block) for form in expand(line)]


def readme_commands() -> list[str]:
    """Each command once, in the order the pages give them (the README repeats some of the site's)."""
    return list(dict.fromkeys(command for page in PAGES for command in commands_of(page)))


def shown_files(page: Path) -> dict[str, str]:
    """The files a page shows whole (```python title="agent.py"), by name."""
    return dict(re.findall(r'^```\w+ title="([^"]+)"\n(.*?)^```', page.read_text(), re.S | re.M))


def test_the_skip_list_names_only_commands_the_readme_has():
    assert set(SKIPPED) - set(readme_commands()) == set()


@pytest.fixture
def home(tmp_path):
    """A home, its own stack ports (never a shared machine's 8080 and 8000), and agent.py in
    the folder the commands run in; the stack a command started is stopped after."""
    ports: set[int] = set()
    env = os.environ | {"DETOUR_HOME": str(tmp_path / "home"), "DETOUR_BACKGROUND": "on",
                        "DETOUR_STACK_IDLE_S": "120", "PATH": f"{BIN}:{os.environ['PATH']}",
                        "DETOUR_PROXY_PORT": str(free_port("127.0.0.1", ports)),
                        "DETOUR_REPLICA_PORT": str(free_port("127.0.0.1", ports))}
    (tmp_path / "agent.py").write_text(AGENT)
    yield tmp_path, env
    subprocess.run([str(BIN / "detour"), "stack", "stop"], env=env, capture_output=True, timeout=60)


def test_every_readme_command_that_can_run_here_exits_0(home):
    folder, env = home
    store = EnvironmentStore(StatePaths(folder / "home").ensure())
    ran = []
    for command in readme_commands():
        if command in SKIPPED:
            continue
        try:  # each command finds ENV, whatever the one before did with it
            store.get(PLACEHOLDERS["ENV"])
        except EnvironmentNotFound:
            store.create("slack_default", env_id=PLACEHOLDERS["ENV"])
        line = re.sub(r"\b(" + "|".join(PLACEHOLDERS) + r")\b", lambda m: PLACEHOLDERS[m[1]], command)
        done = subprocess.run(["bash", "-c", line], env=env, cwd=folder, capture_output=True, text=True,
                              timeout=120, input="a-secret-value\n")
        assert done.returncode == 0, f"{line!r} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
        ran.append(command)
    assert len(ran) >= 20, ran


def test_the_quickstart_runs_as_written(home):
    """Its own files and commands, in order, in a fresh home: the agent posts, the diff shows it."""
    folder, env = home
    for name, text in shown_files(QUICKSTART).items():
        (folder / name).write_text(text)
    outputs = []
    for command in commands_of(QUICKSTART):
        if command in SKIPPED:
            continue
        done = subprocess.run(["bash", "-c", command], env=env, cwd=folder, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{command!r} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
        outputs.append(done.stdout)
    assert "agent.py" in shown_files(QUICKSTART) and len(outputs) == 4, outputs
    assert "posted in #general" in outputs[1]
    assert '"message_text": "Hello from my first agent"' in outputs[2] and "routed 2" in outputs[3]
