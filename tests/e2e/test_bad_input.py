"""Bad input through the real proxy gets the service's own error, and the stack keeps serving."""

import json


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
