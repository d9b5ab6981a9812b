"""The command line on bad input: a misspelled key is refused naming it, and a command given an
environment or an entity that does not exist fails with exit 1 instead of finding nothing."""

import json

from tests.e2e.test_cli import detour


def test_a_policy_file_with_a_misspelled_key_is_refused_and_nothing_is_stored(tmp_path):
    home = tmp_path / "home"
    env = json.loads(detour(home, "env", "create", "--json").stdout)["env_id"]
    before = detour(home, "env", "policy", env).stdout
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"capture": "bodies", "redcat": ["sk-[a-z0-9]+"]}))
    refused = detour(home, "env", "policy", env, "--policy", str(policy), check=False)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert refused.stderr.startswith(f"detour: policy {policy}: unknown key 'redcat' (did you mean 'redact'?); "
                                     "known: allow, body_limit, capture, ")
    assert refused.stderr.count("\n") == 1
    assert detour(home, "env", "policy", env).stdout == before
    policy.write_text(json.dumps({"rules": ["deny POST slack.com/api/chat.delete"]}))  # the form the README shows
    detour(home, "env", "policy", env, "--policy", str(policy))
    assert json.loads(detour(home, "env", "policy", env).stdout)["rules"] == [
        {"action": "deny", "method": "POST", "host": "slack.com", "path": "/api/chat.delete"}]


def test_logs_of_an_unknown_environment_fail(tmp_path):
    home = tmp_path / "home"
    env = json.loads(detour(home, "env", "create", "--json").stdout)["env_id"]
    assert detour(home, "logs", "--env", env).stdout == ""  # no requests yet: nothing to show, no error
    for args in (["logs", "--env", "typo"], ["logs", "--env", "typo", "--summary"], ["logs", "--env", "typo", "--verify"]):
        typo = detour(home, *args, check=False)
        assert (typo.returncode, typo.stdout, typo.stderr) == (1, "", "detour: no environment 'typo'\n"), args


def test_check_with_a_misspelled_entity_or_environment_fails(tmp_path):
    home = tmp_path / "home"
    env = json.loads(detour(home, "env", "create", "--json").stdout)["env_id"]
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps([{"diff_type": "removed", "entity": "mesages", "expected_count": 0}]))
    typo = detour(home, "check", "--env", env, "--assertions", str(spec), check=False)
    assert (typo.returncode, typo.stdout) == (1, "")
    assert typo.stderr.startswith(f"detour: slack environment {env}: unknown entity 'mesages' (did you mean "
                                  "'messages'?); known: ")
    spec.write_text(json.dumps([{"diff_type": "removed", "entity": "messages", "expected_count": 0}]))
    assert detour(home, "check", "--env", env, "--assertions", str(spec)).stdout.endswith("1 passed, 0 failed\n")
    missing = detour(home, "check", "--env", "typo", "--assertions", str(spec), check=False)
    assert (missing.returncode, missing.stderr) == (1, "detour: no environment 'typo'\n")
