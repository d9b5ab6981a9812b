"""AgentDiff's own Python SDK (`agent-diff` from PyPI), unmodified, against a real `detour
serve`: environments, runs with their own before-state, evaluation, diffs and results that
survive a restart. The SDK gets a venv of its own: its pydantic would not fit mitmproxy's."""

import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.e2e.test_cli import Server
from tests.harness_venvs import harness_venv

DRIVER = r"""
import json, sys, requests
from agent_diff import AgentDiff

url, step = sys.argv[1], sys.argv[2]
client = AgentDiff(base_url=url)
state = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
out = {}

def post(env_url, text):
    done = requests.post(f"{env_url}/chat.postMessage", headers={"Authorization": "Bearer xoxb-1"},
                         json={"channel": "random", "text": text}).json()
    assert done["ok"], done

def added(count, text):
    return {"assertions": [{"diff_type": "added", "entity": "messages",
                            "where": {"message_text": {"contains": text}}, "expected_count": count}]}

if step == "no key":
    try:
        AgentDiff(base_url=url, api_key="wrong").list_templates()
    except requests.HTTPError as e:
        out["status"] = e.response.status_code
elif step == "runs":
    env = client.init_env(templateService="slack", templateName="slack_default", ttlSeconds=600,
                          impersonateEmail="John@example.com")
    out["acting"] = requests.post(f"{env.environmentUrl}/auth.test",
                                  headers={"Authorization": "Bearer xoxb-1"}).json()["user_id"]
    first = client.start_run(envId=env.environmentId)
    post(env.environmentUrl, "one")
    second = client.start_run(envId=env.environmentId)
    post(env.environmentUrl, "two")
    out["env"] = env.environmentId
    out["service"] = env.service
    out["expires"] = env.expiresAt is not None
    out["first"] = first.runId
    out["first_passed"] = client.evaluate_run(runId=first.runId, expectedOutput=added(2, "")).passed
    failed = client.evaluate_run(runId=second.runId, expectedOutput=added(1, "one"))
    out["second_passed"], out["second_score"] = failed.passed, failed.score
    out["second_diff"] = len(client.diff_run(runId=second.runId).diff["inserts"])
elif step == "library":
    from agent_diff.models import CreateTestsRequest, TestItem
    templates = client.list_templates().templates
    slack = next(t for t in templates if t.name == "slack_default")
    out["template"] = client.get_template(slack.id).schemaName
    suite = client.create_test_suite(name="detour smoke", description="from the SDK")
    item = TestItem(name="say hi", prompt="Say hi in #random", type="actionEval",
                    expected_output=json.dumps(added(1, "hi")), environmentTemplate=str(slack.id),
                    impersonateUserId="U01AGENBOT9")
    [test] = client.create_tests(suite.id, CreateTestsRequest(tests=[item])).tests
    out["suites"] = [s.name for s in client.list_test_suites(name="smoke").testSuites]
    out["expanded"] = [t.name for t in client.get_test_suite(suite.id, expand=True).tests]
    out["test"] = client.get_test(test.id).seed_template
    env = client.init_env(testId=test.id)
    run = client.start_run(envId=env.environmentId, testId=test.id)
    post(env.environmentUrl, "hi there")
    out["by_test"] = client.evaluate_run(runId=run.runId).passed
    saved = client.create_template_from_environment(environmentId=env.environmentId, service="slack",
                                                    name="after_hi")
    again = client.init_env(templateId=saved.templateId)
    out["from_saved"] = (again.templateSchema, client.diff_run(envId=again.environmentId).diff["inserts"])
elif step == "executors":
    from agent_diff import BashExecutorProxy, PythonExecutorProxy
    env = client.init_env(templateService="slack", templateName="slack_default")
    snippets = json.loads(sys.argv[3])
    out["env"] = env.environmentId
    out["python"] = PythonExecutorProxy(env.environmentId, base_url=url).execute(snippets["python"])
    out["bash"] = BashExecutorProxy(env.environmentId, base_url=url).execute(snippets["bash"])
elif step == "world":
    env = client.init_env(templateName="acme", impersonateEmail="priya@example.com")
    services = f"{env.environmentUrl}/services"
    out["acting"] = requests.post(f"{services}/slack/auth.test", headers={"Authorization": "Bearer x"}).json()["user_id"]
    run = client.start_run(envId=env.environmentId)
    post(f"{services}/slack", "about ENG-5")
    issue = requests.post(f"{services}/linear/graphql", headers={"Authorization": "lin_api_x"}, json={
        "query": '{ issue(id: "ENG-5") { id } }'}).json()["data"]["issue"]["id"]
    requests.post(f"{services}/linear/graphql", headers={"Authorization": "lin_api_x"}, json={
        "query": "mutation($i: CommentCreateInput!) { commentCreate(input: $i) { success } }",
        "variables": {"i": {"issueId": issue, "body": "see Slack"}}}).raise_for_status()
    out["service"] = env.service
    evaluated = client.evaluate_run(runId=run.runId, expectedOutput={"assertions": [
        {"diff_type": "added", "entity": "slack.messages", "where": {"message_text": {"contains": "ENG-5"}}},
        {"diff_type": "added", "entity": "comments", "where": {"body": "see Slack"}, "expected_count": 1}]})
    out["passed"] = evaluated.passed
    out["diff"] = sorted((r["__service__"], r["__table__"]) for r in client.diff_run(runId=run.runId).diff["inserts"])
elif step == "after restart":
    result = client.get_results_for_run(runId=state["first"])
    out["passed"], out["inserts"] = result.passed, len(result.diff["inserts"])
    out["deleted"] = client.delete_env(envId=state["env"]).status
    try:
        client.start_run(envId=state["env"])
    except requests.HTTPError as e:
        out["after_delete"] = e.response.status_code
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def sdk_python() -> Path:
    """The SDK's venv, kept for the day (tests/harness_venvs.py)."""
    return harness_venv("agentdiff", ["agent-diff>=1.0.7,<1.1"])


@contextmanager
def serving(home: Path) -> Iterator[Server]:
    """`detour serve` on `home`, stopped after (also on failure)."""
    server = Server(home)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[Server]:
    """One `detour serve` for the steps that need no restart: each makes its own environments."""
    with serving(tmp_path_factory.mktemp("agentdiff-served") / "home") as server:
        yield server


def drive(python: Path, server: Server, step: str, state: dict | None = None) -> dict:
    """One step of the driver against a running `detour serve`."""
    scratch = server.home.parent / "sdk-tmp"  # the SDK's executors leave a folder per environment in TMPDIR
    scratch.mkdir(exist_ok=True)
    url, key = server.platform()
    done = subprocess.run([str(python), "-c", DRIVER, url, step, json.dumps(state or {})],
                          capture_output=True, text=True, timeout=120,
                          # the SDK's executors start `python3` and `bash` from PATH
                          env={"AGENT_DIFF_API_KEY": key, "PATH": f"{python.parent}:/usr/bin:/bin",
                               "TMPDIR": str(scratch)})
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_the_agentdiff_sdk_runs_unmodified_against_detour(tmp_path, sdk_python):
    with serving(tmp_path / "home") as server:
        runs = drive(sdk_python, server, "runs")
    assert (runs["service"], runs["expires"], runs["first_passed"], runs["acting"]) == ("slack", True, True, "U02JOHNDOE1")
    assert runs["second_passed"] is False and runs["second_score"]["passed"] == 0  # its own before-state
    assert runs["second_diff"] == 1
    with serving(tmp_path / "home") as server:  # the results survive the restart
        later = drive(sdk_python, server, "after restart", runs)
    assert later == {"passed": True, "inserts": 2, "deleted": "deleted", "after_delete": 404}


def test_the_agentdiff_sdk_works_on_a_world(served, sdk_python):
    """initEnv with a world template and a person's email, startRun, evaluateRun with assertions
    across services (`slack.messages`, and `comments`, which Linear alone has), diffRun."""
    out = drive(sdk_python, served, "world")
    assert out["service"] == "world" and out["acting"] == "U06PRIYAPA1" and out["passed"] is True
    assert out["diff"] == [["linear", "linear.comments"], ["slack", "slack.messages"]]


def test_templates_suites_and_tests_through_the_agentdiff_sdk(served, sdk_python):
    out = drive(sdk_python, served, "library")
    assert drive(sdk_python, served, "no key") == {"status": 401}
    assert out == {"template": "slack_default", "suites": ["detour smoke"], "expanded": ["say hi"],
                   "test": "slack_default", "by_test": True, "from_saved": ["after_hi", []]}


SNIPPETS = {
    "python": """import requests
sent = requests.post("https://slack.com/api/chat.postMessage", headers={"Authorization": "Bearer xoxb-1"},
                     json={"channel": "general", "text": "hello from an executor"}).json()
print(sent["ok"])""",
    "bash": """curl -s -X POST https://slack.com/api/chat.postMessage -H 'Authorization: Bearer xoxb-1' \\
  -d channel=random -d 'text=and from bash' | grep -o '"ok":true'""",
}


def test_agentdiffs_own_executors_reach_detour_and_match_its_proxy_mode(served, sdk_python):
    """The SDK's executors rewrite URLs in the caller's process (AgentDiff's way); detour's run
    the same code unmodified in a sandbox behind the proxy. Both end in the same state."""
    import detour
    from detour.compare import state_difference

    theirs = drive(sdk_python, served, "executors", SNIPPETS)
    assert theirs["python"]["stdout"] == "True\n" and theirs["bash"]["stdout"] == '"ok":true\n', theirs
    with detour.Client(home=served.home) as client:
        rewritten = client.environments.diff(theirs["env"])
        env = client.environments.create("slack_default").env_id
        for language, code in SNIPPETS.items():
            with client.executor(language, env=env) as ours:
                assert ours.execute(code)["status"] == "success"
                assert [r.decision for r in ours.last.requests] == ["routed"]
        proxied = client.environments.diff(env)
    assert sorted(row["message_text"] for row in rewritten.inserts) == ["and from bash", "hello from an executor"]
    assert state_difference(rewritten, proxied) == ([], [])
    proxied.inserts[0]["message_text"] = "something else"
    assert state_difference(rewritten, proxied) != ([], [])  # the comparison does see a difference
