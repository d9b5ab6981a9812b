"""Rules by method and path on a replica's host, through the real proxy and through rewrite
mode's gateway: the first rule that matches decides, the 403 and the record name it."""

import json

import pytest

from detour_core.policy import Policy, Rule, policy_file, save_policy
from tests.conftest import BACKENDS

AGENT = """
import json, requests
auth = {"Authorization": "Bearer xoxb-1"}
out = []
for method in ("chat.postMessage", "chat.delete"):
    r = requests.post(f"https://slack.com/api/{method}", headers=auth, json={"channel": "general", "text": "hi", "ts": "1"})
    out.append([r.status_code, r.headers.get("X-Detour-Decision"), r.json().get("reason")])
print(json.dumps(out))
"""


@pytest.mark.parametrize("mode", ["proxy", "rewrite"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_rule_forbids_one_slack_method(live_stack, make_env, backend, mode):
    env = make_env()
    save_policy(policy_file(live_stack.state, env), Policy(rules=[Rule.parse("deny POST slack.com/api/chat.delete"),
                                                                  Rule.parse("allow * slack.com/api/*")]))
    result = live_stack.run(env, AGENT, ".py", backend=backend, mode=mode)
    assert result.exit_code == 0, result.stderr
    posted, deleted = json.loads(result.stdout)
    assert posted[0] == 200 and deleted == [403, "denied", "denied by rule 1: deny POST slack.com/api/chat.delete"]
    decided = [(r.path, r.decision, r.rule) for r in result.requests]
    assert decided == [("/api/chat.postMessage", "routed", "rule 2: allow * slack.com/api/*"),
                       ("/api/chat.delete", "denied", "rule 1: deny POST slack.com/api/chat.delete")]
    assert [row["message_text"] for row in result.diff.inserts] == ["hi"]
