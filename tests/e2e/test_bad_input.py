"""Bad input: through the real proxy it gets the service's own error, and the stack keeps serving;
on the command line it is refused at the door, in one line."""

import json

import pytest


def test_bad_requests_get_clear_errors_and_the_stack_keeps_serving(live_stack, make_env):
    slack, linear = make_env(), make_env("linear_default")
    proxy = f"{live_stack.info.host}:{live_stack.info.proxy_port}"
    code = f"""
A='Authorization: Bearer xoxb-1'
curl -s -H "$A" -H 'Content-Type: application/json' https://slack.com/api/chat.postMessage -d '{{not json'; echo
curl -s -H "$A" https://slack.com/api/no.such_method; echo
curl -s -x 'http://bad%20id:x@{proxy}' -o /dev/null -w '%{{http_code}}' http://slack.com/api/auth.test; echo
curl -s -x 'http://{linear}:SECRET@{proxy}' -o /dev/null -w '%{{http_code}}' http://slack.com/api/auth.test; echo
curl -s -H "$A" https://slack.com/api/auth.test; echo
"""
    result = live_stack.run(slack, code.replace("SECRET", "nope"), ".sh")
    lines = result.stdout.splitlines()
    assert json.loads(lines[0]) == {"ok": False, "error": "invalid_json"}
    assert json.loads(lines[1])["error"] == "unknown_method"
    assert lines[2:4] == ["407", "407"]
    assert json.loads(lines[4])["ok"] is True

    graphql = """
curl -s -H 'Authorization: lin_api_1' -H 'Content-Type: application/json' https://api.linear.app/graphql -d '{"query": "{ issue(id: "}'; echo
curl -s -H 'Authorization: lin_api_1' -H 'Content-Type: application/json' https://api.linear.app/graphql -d '{"query": "{ viewer { name } }"}'
"""
    result = live_stack.run(linear, graphql, ".sh")
    error, ok = (json.loads(line) for line in result.stdout.splitlines())
    assert "Syntax Error" in error["errors"][0]["message"]
    assert ok["data"]["viewer"]["name"] == "AI Agent"
    assert live_stack.store.diff(slack).inserts == live_stack.store.diff(linear).inserts == []


# Every command given a wrong value: refused at the door in one line that names the value (and
# what would be valid), exit 2 (1 where a named thing does not exist), no traceback, nothing made.
# In this process (detour.cli.main, as the console script calls it): a process each would cost
# a second of imports per row.
WRONG = [
    (["env", "create", "--template", "nosuch"], "unknown template 'nosuch'; known templates: acme"),
    (["env", "create", "--template", "slack_default", "--user", "nobody"],
     "'nobody' is no user of template 'slack_default': its users are U01AGENBOT9"),
    (["env", "create", "--template", "slack_default", "--ttl", "-5"], "positive number of seconds, not -5"),
    (["env", "clock", "E", "--set", "tomorrow"], "--set: a time is ISO 8601 (2025-01-06T09:00:00Z) or epoch seconds, "
                                                 "not 'tomorrow'"),
    (["env", "clock", "E", "--advance", "soon"], "(90s, 30m, 12h, 7d), not 'soon'"),
    (["env", "advance", "E", "soon"], "the duration takes a number and a unit (90s, 30m, 12h, 7d), not 'soon'"),
    (["env", "fault", "E", "error PSOT slack.com/api/chat.postMessage"],
     "'PSOT' is no HTTP method: one of *, DELETE, GET"),
    (["env", "fault", "E", "latency POST slack.com/api/chat.postMessage"], "a latency fault needs latency_ms"),
    (["env", "fault", "E", "error POST slack.com/api/x", "--status", "418"], "status: Input should be 500, 502 or 503"),
    (["env", "secret", "set", "E", "TOKEN", "--host", "slack.com", "--from-env", "HOME"],
     "slack.com is answered by its replica"),
    (["env", "policy", "E", "--allow", "not a host"], "'not a host' is not a host name"),
    (["env", "policy", "E", "--rule", "maybe GET x.com/"], "action: Input should be 'allow' or 'deny'"),
    (["run", "FOLDER"], "is a folder: give a program file in it"),
    (["run", "--timeout", "-1", "AGENT"], "--timeout -1.0: input should be greater than 0"),
    (["run", "--memory-mb", "0", "AGENT"], "--memory-mb 0: input should be greater than 0"),
    (["run", "--backend", "nosuch", "AGENT"], "'nosuch' is not one of"),
    (["replay", "nosuch.jsonl", "--template", "slack_default"], "cannot read records from nosuch.jsonl"),
    (["replay", "RECORDS", "--template", "slack_default"], "line 1: not an audit record"),
    (["suite", "run", "SUITE", "--agent", "no-such-agent-program"],
     "'no-such-agent-program' is neither a file nor a program on PATH"),
    (["suite", "run", "SUITE", "--agent", "true", "--timeout", "0"], "--timeout 0.0: input should be greater than 0"),
    (["serve", "--proxy-port", "99999"], "less than or equal to 65535"),
    (["serve", "--database", "mysql://x"], "must be postgresql://"),
    (["env", "diff", "nosuch"], "no environment 'nosuch'"),
]


@pytest.fixture(scope="module")
def door(tmp_path_factory):
    """A home with one environment, and the files the rows name."""
    folder = tmp_path_factory.mktemp("door")
    home = folder / "home"
    (folder / "FOLDER").mkdir()
    (folder / "AGENT").write_text("print(1)\n")
    (folder / "RECORDS").write_text('{"not": "a record"}\n')
    (folder / "SUITE").write_text(json.dumps({"name": "s", "tests": [{"id": "t", "name": "t", "prompt": "p",
                                                                       "seed_template": "slack_default",
                                                                       "assertions": [{"diff_type": "added",
                                                                                       "entity": "messages"}]}]}))
    return folder, home


@pytest.mark.parametrize("args, message", WRONG, ids=[" ".join(a)[:50] for a, _ in WRONG])
def test_every_command_refuses_a_wrong_value_in_one_clear_line(door, args, message, monkeypatch, capsys):
    from detour.cli import main
    from mock_services.store import EnvironmentStore
    from detour_core.paths import StatePaths

    folder, home = door
    monkeypatch.setenv("DETOUR_HOME", str(home))
    monkeypatch.setenv("COLUMNS", "400")  # typer's own usage errors in a box: one line wide enough for the message
    monkeypatch.chdir(folder)
    store = EnvironmentStore(StatePaths(home).ensure())
    env = store.list()[0].env_id if store.list() else store.create("slack_default").env_id
    before = (sorted(e.env_id for e in store.list()), sorted(p.name for p in home.iterdir()))
    monkeypatch.setattr("sys.argv", ["detour", *[env if word == "E" else word for word in args]])
    with pytest.raises(SystemExit) as leaving:
        main()
    err = capsys.readouterr().err
    assert leaving.value.code == (1 if "no environment" in message else 2), err
    assert "Traceback" not in err and message in " ".join(err.split()).replace("│", "").replace("  ", " "), err
    assert (sorted(e.env_id for e in store.list()), sorted(p.name for p in home.iterdir())) == before


def test_serve_with_a_users_pack_whose_router_cannot_be_imported_says_so_in_one_line(tmp_path):
    """The replica server dies at its start (mock_services/app.py imports a user's router module
    there); the stack's error names the cause from the server's log, not only where the log is."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "typo_pack.py").write_text(
        "from pathlib import Path\nfrom detour_core.pack import ServicePack\n"
        "PACK = ServicePack(name='typo', hosts=('typo.example.test',), router='typo_pack_routr:router',"
        " templates=Path('.'), signature_tables=('t',))\n")
    env = os.environ | {"DETOUR_HOME": str(tmp_path / "home"), "PYTHONPATH": str(tmp_path),
                        "DETOUR_SERVICE_PACKS": "typo_pack"}
    served = subprocess.run([str(Path(sys.executable).parent / "detour"), "serve", "--proxy-port", "0",
                             "--replica-port", "0"], env=env, capture_output=True, text=True, timeout=120)
    assert served.returncode == 2 and "Traceback" not in served.stderr, served.stderr
    assert ("replicas exited with 1: detour_core.registry.InvalidServicePack: service pack 'typo': its router "
            "'typo_pack_routr:router' cannot be imported: ModuleNotFoundError") in served.stderr, served.stderr
