"""Environments in Postgres: `detour serve --database`, and several replica servers and
proxies on one database, sharing environments (a server of the tests' own, socket only)."""

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor

import requests

from detour_core.credentials import api_key
from detour_core.paths import StatePaths
from detour.runner import run_in_environment
from detour.stack import Stack
from mock_services.store import EnvironmentStore
from sandbox.languages import command_for
from sandbox.process import ProcessSandbox
from tests.e2e.test_cli import DETOUR, Server

POST = """import os, requests
for n in range(3):
    sent = requests.post("https://slack.com/api/chat.postMessage", headers={"Authorization": "Bearer xoxb-1"},
                         json={"channel": "general", "text": f"{os.environ['DETOUR_TEST_ID']} #{n}"}).json()
    assert sent["ok"], sent
"""


def detour(home, *args, check=True):
    return subprocess.run([DETOUR, *args], env=os.environ | {"DETOUR_HOME": str(home)}, capture_output=True,
                          text=True, check=check, timeout=120)


def test_serve_with_a_postgres_database(tmp_path, postgres, monkeypatch):
    from tests.postgres import fresh_database
    home = tmp_path / "home"
    monkeypatch.delenv("DETOUR_DATABASE_URL", raising=False)
    assert detour(home, "env", "list").stdout == ""  # SQLite until told otherwise
    with fresh_database(postgres) as url:
        for wrong in ("postgresql://x@/none?host=/nowhere", "mysql://x@y/z"):  # refused, and nothing recorded
            refused = detour(home, "serve", "--database", wrong, check=False)
            assert refused.returncode == 2 and "; nothing recorded" in refused.stderr, refused.stderr
            assert not (home / "database.url").exists()
        server = Server(home, "--database", url)
        server.start()
        try:
            env = json.loads(detour(home, "env", "create", "--json").stdout)["env_id"]
            program = tmp_path / "post.py"
            program.write_text(POST.replace("os.environ['DETOUR_TEST_ID']", "'cli'"))
            run = detour(home, "run", "--backend", "process", "--env", env, str(program), check=False)
            assert run.returncode == 0, run.stderr
            diff = json.loads(detour(home, "env", "diff", env).stdout)
            assert [i["message_text"] for i in diff["inserts"]] == ["cli #0", "cli #1", "cli #2"]
            assert not list((home / "environments").glob("*.sqlite"))  # nothing went to SQLite
        finally:
            server.stop()
        assert detour(home, "env", "list").stdout.startswith(env)  # recorded: the CLI uses Postgres too
        (home / "database.url").unlink()


def test_two_replica_servers_and_two_proxies_share_one_postgres(tmp_path, postgres_url):
    state = StatePaths(tmp_path / "home").ensure()
    store = EnvironmentStore(state)
    program = tmp_path / "post.py"
    program.write_text(POST)
    sandbox = ProcessSandbox(state.runs_dir)
    argv = command_for(program, sandbox.runtime)
    with Stack(state) as first, Stack(state) as second:
        stacks = [first, second]
        envs = [store.create("slack_default").env_id for _ in range(100)]

        def run(index: int):
            env = envs[index]
            return run_in_environment(state, stacks[index % 2], env, sandbox, argv, program=program,
                                      task={"DETOUR_TEST_ID": env})

        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(run, range(100)))
        assert [r.exit_code for r in results] == [0] * 100, [r.stderr for r in results if r.exit_code][:1]
        assert all([x.decision for x in r.requests] == ["routed"] * 3 for r in results)
        for index, env in enumerate(envs):
            texts = [i["message_text"] for i in store.diff(env).inserts]
            assert texts == [f"{env} #{n}" for n in range(3)]  # complete, and nobody else's
        key = {"X-API-Key": api_key(state)}
        for env in envs[:10]:  # either replica server answers for any environment
            seen = [requests.get(f"{s.replica_url}/api/platform/environments/{env}/diff", headers=key).json()
                    for s in stacks]
            assert seen[0] == seen[1] and len(seen[0]["inserts"]) == 3
