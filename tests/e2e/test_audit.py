"""N requests give N audit lines, and no secret reaches the log."""


from detour_core.audit import AuditLog
from detour_core.credentials import secret_for

CODE = """
import requests
s = requests.Session()
for i in range(20):
    r = s.post("https://slack.com/api/chat.postMessage?token=xoxb-QUERY-SECRET",
               headers={"Authorization": "Bearer xoxb-HEADER-SECRET"},
               data={"channel": "general", "text": f"n{i}", "token": "xoxb-BODY-SECRET"})
    assert r.json()["ok"], r.text
for i in range(5):
    assert s.get(f"https://denied.example.net/{i}?api_key=KEY-SECRET").status_code == 403
s.get("https://slack.com/api/no.such_method", headers={"Authorization": "Bearer xoxb-HEADER-SECRET"})
"""


def test_every_request_is_one_line_and_secrets_are_redacted(live_stack, make_env):
    env = make_env()
    result = live_stack.run(env, CODE, ".py")
    assert result.exit_code == 0, result.stderr
    assert len(result.requests) == 26
    assert [r.decision for r in result.requests] == ["routed"] * 20 + ["denied"] * 5 + ["routed"]
    assert [r.status for r in result.requests] == [200] * 20 + [403] * 5 + [200]  # unknown_method is a 200 on Slack
    assert len(result.diff.inserts) == 20

    records, _ = AuditLog(live_stack.state.audit_dir).read(env)
    assert records == result.requests
    text = "\n".join(path.read_text() for path in (live_stack.state.audit_dir / env).glob("*.jsonl"))
    for secret in ("QUERY-SECRET", "HEADER-SECRET", "BODY-SECRET", "KEY-SECRET", secret_for(live_stack.state, env)):
        assert secret not in text
    first = records[0]
    assert (first.method, first.scheme, first.host, first.port, first.service) == ("POST", "https", "slack.com", 443, "slack")
    assert first.request_bytes > 0 and first.response_bytes > 0 and first.duration_ms >= 0
    assert first.path == "/api/chat.postMessage?token=[REDACTED]"
