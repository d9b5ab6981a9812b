"""`detour check`: AgentDiff assertions against what an agent really did through the proxy."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.test_cli import serving

SUITE = Path(__file__).parents[1] / "fixtures" / "early-suite"
DETOUR = str(Path(sys.executable).parent / "detour")

SCRIPTS = {
    ("test_1", True): 'from slack_sdk import WebClient\nWebClient(token="x").chat_postMessage(channel="general", text="hello")\n',
    ("test_1", False): 'from slack_sdk import WebClient\nWebClient(token="x").chat_postMessage(channel="random", text="hello")\n',
    ("test_11", True): 'curl -s -H "Authorization: Bearer x" https://slack.com/api/conversations.setTopic '
                       '-d channel=C01ABCD1234 --data-urlencode "topic=Weekly standup discussions"\n',
    ("test_11", False): 'curl -s -H "Authorization: Bearer x" https://slack.com/api/conversations.setTopic '
                        '-d channel=C01ABCD1234 --data-urlencode "topic=Daily standup"\n',
}


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """A detour home whose templates are the suite's own seeds, and one `detour serve` on it that
    every test's runs go through (each test makes an environment of its own)."""
    home = tmp_path_factory.mktemp("check") / "home"
    shutil.copytree(SUITE / "seeds", home / "templates")
    with serving(home):
        yield home


def detour(home, *args):
    return subprocess.run([DETOUR, *args], env=os.environ | {"DETOUR_HOME": str(home)}, capture_output=True,
                          text=True, timeout=120, cwd=home.parent)


@pytest.mark.parametrize("test_id, right", list(SCRIPTS))
def test_check_passes_the_right_agent_and_fails_the_wrong_one(home, test_id, right):
    suite = json.loads((SUITE / "slack_bench.json").read_text())
    test = next(t for t in suite["tests"] if t["id"] == test_id)
    env = json.loads(detour(home, "env", "create", "--template", test["seed_template"],
                            "--user", test["impersonate_user_id"], "--json").stdout)["env_id"]
    script = home.parent / ("agent.py" if SCRIPTS[test_id, right].startswith("from") else "agent.sh")
    script.write_text(SCRIPTS[test_id, right])
    assert detour(home, "run", "--env", env, script.name).returncode == 0
    checked = detour(home, "check", "--env", env, "--assertions", str(SUITE / "slack_bench.json"), "--test", test_id)
    assert checked.returncode == (0 if right else 1), checked.stdout + checked.stderr
    assert ("0 failed" in checked.stdout) is right


def test_check_reports_bad_input_clearly(home):
    env = json.loads(detour(home, "env", "create", "--json").stdout)["env_id"]
    missing = detour(home, "check", "--env", env, "--assertions", "nope.json")
    assert missing.returncode == 2 and "cannot read nope.json" in missing.stderr
    suite = detour(home, "check", "--env", env, "--assertions", str(SUITE / "slack_bench.json"))
    assert suite.returncode == 2 and "name a test with --test" in suite.stderr
