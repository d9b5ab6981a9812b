"""Environments stay apart, and credentials decide which one a request may touch."""

from concurrent.futures import ThreadPoolExecutor
import uuid

from detour_core.credentials import secret_for


def post_code(mark: str) -> str:
    return f"""
import requests
print(requests.post("https://slack.com/api/chat.postMessage", headers={{"Authorization": "Bearer x"}},
                    data={{"channel": "general", "text": "{mark}"}}).json()["ok"])
"""


def test_two_environments_at_once_stay_apart(live_stack, make_env):
    envs = [make_env(), make_env()]
    marks = {env: f"only-{env}-{uuid.uuid4().hex[:6]}" for env in envs}
    with ThreadPoolExecutor(len(envs)) as pool:
        futures = {env: pool.submit(live_stack.run, env, post_code(marks[env]) * 3, ".py") for env in envs}
    results = {env: future.result() for env, future in futures.items()}
    for env in envs:
        assert results[env].exit_code == 0, results[env].stderr
        texts = [i["message_text"] for i in live_stack.store.diff(env).inserts]
        assert texts == [marks[env]] * 3
        assert {r.env_id for r in results[env].requests} == {env}


def curl_through(live_stack, user: str, password: str) -> str:
    proxy = f"http://{user}:{password}@{live_stack.info.host}:{live_stack.info.proxy_port}"
    return f"""
curl -sS -o /dev/null -w '%{{http_code}}\\n' -x '{proxy}' -H 'Authorization: Bearer x' \\
     https://slack.com/api/chat.postMessage -d channel=general -d text=sneaky
curl -sS -o /dev/null -w '%{{http_code}}\\n' -x '{proxy}' -H 'Authorization: Bearer x' \\
     http://slack.com/api/chat.postMessage -d channel=general -d text=sneaky
"""


def test_wrong_secret_gets_407_and_changes_nothing(live_stack, make_env):
    env = make_env()
    result = live_stack.run(env, curl_through(live_stack, env, "not-the-secret"), ".sh")
    assert "CONNECT tunnel failed, response 407" in result.stderr  # https
    assert result.stdout.split()[-1] == "407"                        # plain http
    assert live_stack.store.diff(env).inserts == []


def test_another_environments_id_with_my_secret_gets_407(live_stack, make_env):
    mine, theirs = make_env(), make_env()
    result = live_stack.run(mine, curl_through(live_stack, theirs, secret_for(live_stack.state, mine)), ".sh")
    assert "407" in result.stderr + result.stdout
    assert live_stack.store.diff(theirs).inserts == []
    assert live_stack.store.diff(mine).inserts == []


def test_control_right_credentials_do_change_state(live_stack, make_env):
    """The 407 tests above would pass trivially if curl never reached the proxy."""
    env = make_env()
    result = live_stack.run(env, curl_through(live_stack, env, secret_for(live_stack.state, env)), ".sh")
    assert result.stdout.split() == ["200", "200"]
    assert len(live_stack.store.diff(env).inserts) == 2
