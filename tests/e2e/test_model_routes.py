"""The agent's own model calls: OpenAI's and Anthropic's official Python SDKs, unmodified in a
namespace sandbox, reach api.openai.com and api.anthropic.com; the environment's policy routes
the first to an OpenAI-compatible server the test runs on loopback and the second to "the
vendor", a TLS server of the test's own that the stack reaches for that name, with the key
detour holds. Streamed answers come through as they are produced, tool calls and tokens
arrive, the records hold the model, tokens and time to first token, budgets answer the vendors'
own 429, and a recorded run replays to the same answers without a model."""

import json
import os
import re
import secrets
import subprocess
from pathlib import Path

import pytest

from fastapi import FastAPI, Request

from detour.stack import Stack
from detour.suite import prepare_suite, run_test
from detour_core.paths import StatePaths
from detour_core.policy import InvalidPolicy, Policy, load_policy, policy_file, save_policy
from detour_core.secrets import SecretRules, SecretStore
from mock_services.assertions import evaluate_environment, parse_spec
from mock_services.store import EnvironmentStore
from tests.conftest import LiveStack, needs_namespaces
from tests.e2e.model_servers import WORDS, Script, scripted_app, serving, vendor_certificates
from tests.e2e.test_cli import DETOUR

pytestmark = needs_namespaces

AGENT = r"""
import json, os, re, anthropic, openai
oa, an = openai.OpenAI(), anthropic.Anthropic()
ask = [{"role": "user", "content": "post hello to general"}]
out = {}
r = oa.chat.completions.create(model="policy-7b", messages=ask, tools=[{"type": "function", "function": {
    "name": "post_message", "parameters": {"type": "object", "properties": {"channel": {"type": "string"}}}}}])
call = r.choices[0].message.tool_calls[0].function
out["openai_tool"] = [call.name, json.loads(call.arguments), r.usage.prompt_tokens, r.usage.completion_tokens]
text, usage = "", None
for chunk in oa.chat.completions.create(model="policy-7b", messages=ask, stream=True,
                                        stream_options={"include_usage": True}):
    if chunk.choices and chunk.choices[0].delta.content:
        if not text:  # the first words are here: the server may finish
            oa.chat.completions.create(model="ack", messages=ask)
        text += chunk.choices[0].delta.content
    usage = chunk.usage or usage
out["openai_stream"] = [text, usage.completion_tokens]
m = an.messages.create(model="claude-test", max_tokens=64, messages=ask, tools=[
    {"name": "post_message", "input_schema": {"type": "object", "properties": {"channel": {"type": "string"}}}}])
out["anthropic_tool"] = [m.content[0].name, m.content[0].input, m.usage.input_tokens, m.usage.output_tokens]
text = ""
with an.messages.stream(model="claude-test", max_tokens=64, messages=ask) as stream:
    for words in stream.text_stream:
        if not text:
            an.messages.create(model="ack", max_tokens=1, messages=ask)
        text += words
    final = stream.get_final_message()
out["anthropic_stream"] = [text, final.usage.input_tokens, final.usage.output_tokens]
key = re.compile(r"sk-ant-[A-Za-z0-9_-]{20,}")
found = set(key.findall(json.dumps(dict(os.environ))))
def own(path, device):  # not a host folder shown in read-only (the runtime's: in /tmp when detour is)
    try:
        return os.stat(path).st_dev == device
    except OSError:
        return False
for top in ("/tmp", "/etc", os.getcwd(), os.environ.get("HOME") or "/tmp"):
    for folder, folders, names in os.walk(top):
        device = os.stat(folder).st_dev
        folders[:] = [f for f in folders if own(os.path.join(folder, f), device)]
        for name in names[:200]:
            try:
                found.update(key.findall(open(os.path.join(folder, name), "rb").read(1 << 20).decode("latin-1")))
            except OSError:
                pass
out["key_shaped"] = sorted(found)
print(json.dumps(out))
"""
BUDGET = r"""
import json, anthropic, openai
out = []
for client, ask in ((openai.OpenAI(), lambda c: c.chat.completions.create(model="policy-7b", messages=[
        {"role": "user", "content": "hi"}])),
                    (anthropic.Anthropic(), lambda c: c.messages.create(model="claude-test", max_tokens=8, messages=[
        {"role": "user", "content": "hi"}]))):
    try:
        ask(client)
        out.append("answered")
    except (openai.RateLimitError, anthropic.RateLimitError) as e:
        out.append([type(e).__module__.split(".")[0], e.status_code, e.body])
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """The two scripted servers (OpenAI-compatible on loopback, "Anthropic" on 127.x.y.z:443 with
    TLS for api.anthropic.com) and a stack that reaches the second for that name."""
    root = tmp_path_factory.mktemp("models")
    ca = vendor_certificates(root, "api.anthropic.com")
    vendor_address = "127.%d.%d.%d" % tuple(secrets.randbelow(250) + 2 for _ in range(3))
    own, vendor = Script(), Script()
    state = StatePaths(root / "home").ensure()
    (root / "scripts").mkdir()
    with serving(scripted_app(own)) as port, \
            serving(scripted_app(vendor), vendor_address, 443, ssl_certfile=str(root / "vendor.pem"),
                    ssl_keyfile=str(root / "vendor.key")), \
            Stack(state, upstream_hosts={"api.anthropic.com": vendor_address}, upstream_ca=ca, policy=Policy.model_validate(
                {"models": [{"host": "api.openai.com", "base_url": f"http://127.0.0.1:{port}/v1"}]})) as info:
        yield LiveStack(state, info, EnvironmentStore(state), root / "scripts"), f"http://127.0.0.1:{port}/v1", own, vendor


def routed_env(stack: LiveStack, base_url: str, anthropic: dict | None = None, **policy) -> tuple[str, str, str]:
    """An environment whose OpenAI calls go to `base_url` and Anthropic's to the vendor (or the
    `anthropic` target), with detour holding both keys; the Anthropic key's value and placeholder."""
    env = stack.env()
    save_policy(policy_file(stack.state, env), Policy.model_validate(
        {"models": [{"host": "api.openai.com", "base_url": base_url},
                    {"host": "api.anthropic.com", **(anthropic or {"vendor": True})}], **policy}))
    store = SecretStore(stack.state.secrets_dir)
    store.set(env, "OPENAI_API_KEY", "sk-proj-" + secrets.token_urlsafe(30), ["api.openai.com"])
    value = "sk-ant-" + secrets.token_urlsafe(30)
    placeholder = store.set(env, "ANTHROPIC_API_KEY", value, ["api.anthropic.com"],
                            SecretRules(headers=["x-api-key"])).placeholder
    return env, value, placeholder


def test_the_sdks_reach_their_routed_models_streamed_and_metered_and_replay_without_them(models):
    stack, base_url, own, vendor = models
    env, value, placeholder = routed_env(stack, base_url, capture="bodies", body_limit=1 << 20)
    result = stack.run(env, AGENT, ".py", backend="namespace")
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    said = "".join(WORDS) + " acked"  # the first words reached the agent before the server wrote the rest
    prompt = own.calls[0]["body"]
    assert out["openai_tool"][:2] == ["post_message", {"channel": "general"}]
    assert out["openai_stream"] == [said, len(WORDS) + 1] and out["anthropic_stream"][0] == said
    assert out["anthropic_tool"][:2] == ["post_message", {"channel": "general"}]
    assert out["key_shaped"] == [placeholder] and value not in result.stdout + result.stderr
    assert {c["credential"] for c in vendor.calls} == {value}  # the vendor got the key; the sandbox held a placeholder
    assert all(c["credential"].startswith("sk-proj-") for c in own.calls)  # a placeholder: no key leaves for it
    assert prompt["messages"] == [{"role": "user", "content": "post hello to general"}]

    calls = [r for r in result.requests if r.model_call]
    by = {(r.host, r.model_call.model, r.model_call.stream): r for r in calls}  # the acks race their streams' ends
    assert len(calls) == 6 and sorted(by) == [
        ("api.anthropic.com", "ack", False), ("api.anthropic.com", "claude-test", False),
        ("api.anthropic.com", "claude-test", True), ("api.openai.com", "ack", False),
        ("api.openai.com", "policy-7b", False), ("api.openai.com", "policy-7b", True)]
    tool, streamed = by["api.openai.com", "policy-7b", False], by["api.openai.com", "policy-7b", True]
    a_tool, a_streamed = by["api.anthropic.com", "claude-test", False], by["api.anthropic.com", "claude-test", True]
    assert (tool.model_call.input_tokens, tool.model_call.output_tokens) == tuple(out["openai_tool"][2:])
    assert streamed.model_call.output_tokens == len(WORDS) + 1
    assert (a_tool.model_call.input_tokens, a_tool.model_call.output_tokens) == tuple(out["anthropic_tool"][2:])
    assert (a_streamed.model_call.input_tokens, a_streamed.model_call.output_tokens) == tuple(out["anthropic_stream"][1:])
    assert tool.model_call.target == base_url and a_tool.model_call.target == "vendor"
    assert a_tool.secrets == ["ANTHROPIC_API_KEY"] and tool.secrets is None
    for record in calls:
        assert record.decision == "allowed" and record.status == 200
        assert 0 < record.model_call.ttft_ms <= record.duration_ms
    assert "post hello to general" in streamed.request.body and "acked" in streamed.response.body
    assert value not in json.dumps([r.model_dump() for r in result.requests])
    assert result.model_calls == calls
    checks = evaluate_environment(parse_spec({"assertions": [
        {"diff_type": "requested", "entity": "requests", "where": {"model_call.model": "policy-7b"}, "expected_count": 2},
        {"diff_type": "requested", "entity": "requests", "where": {"host": "api.anthropic.com",
                                                                  "model_call.output_tokens": {"gt": 8}}},
        {"diff_type": "requested", "entity": "requests", "where": {"model_call.tokens": {"gt": 16}}, "expected_count": 0},
        {"diff_type": "requested", "entity": "requests", "where": {"model_call.model": "gpt-4o"}}]}), stack.store, env)
    assert [c.passed for c in checks] == [True, True, True, False]

    replayed, _, _ = routed_env(stack, base_url)
    save_policy(policy_file(stack.state, replayed), Policy.model_validate({"models": [
        {"host": "api.openai.com", "replay": env}, {"host": "api.anthropic.com", "replay": env}]}))
    before = len(own.calls) + len(vendor.calls)
    again = stack.run(replayed, AGENT, ".py", backend="namespace")
    assert again.exit_code == 0, again.stderr
    assert {k: v for k, v in json.loads(again.stdout).items() if k != "key_shaped"} == \
        {k: v for k, v in out.items() if k != "key_shaped"}
    assert len(own.calls) + len(vendor.calls) == before  # no model was asked
    assert sorted((r.path, r.model_call.model, r.model_call.stream, r.model_call.output_tokens)
                  for r in again.requests if r.model_call) == \
        sorted((r.path, r.model_call.model, r.model_call.stream, r.model_call.output_tokens) for r in calls)


UNTRANSLATED = r"""
import anthropic
try:
    anthropic.Anthropic().models.list()
except anthropic.NotFoundError as e:
    print(e.body["error"]["type"], "|", e.body["error"]["message"])
"""


def test_each_sdk_is_answered_by_a_server_of_the_other_protocol_translated_as_it_streams(models):
    """OpenAI's SDK answered by an Anthropic-shaped server and Anthropic's by an OpenAI-compatible
    one (litellm translating in the proxy's translator): tool calls, tokens and streams as the
    SDKs read them, the first words before the server wrote the rest; a path not translated is
    the SDK's own 404."""
    stack, base_url, own, _ = models
    env, _, _ = routed_env(stack, base_url)  # its keys; the policy is this test's
    save_policy(policy_file(stack.state, env), Policy.model_validate({"models": [
        {"host": "api.openai.com", "base_url": base_url.removesuffix("/v1"), "protocol": "anthropic"},
        {"host": "api.anthropic.com", "base_url": base_url, "protocol": "openai"}]}))
    before = len(own.calls)
    result = stack.run(env, AGENT, ".py", backend="namespace")
    assert result.exit_code == 0, result.stderr
    out, said = json.loads(result.stdout), "".join(WORDS) + " acked"
    assert out["openai_tool"][:2] == out["anthropic_tool"][:2] == ["post_message", {"channel": "general"}]
    assert out["openai_stream"] == [said, len(WORDS) + 1] and out["anthropic_stream"][0] == said
    served = {(c["path"], c["body"]["model"]) for c in own.calls[before:]}
    assert served == {("/v1/messages", "policy-7b"), ("/v1/messages", "ack"),  # OpenAI's calls, as Anthropic's
                      ("/v1/chat/completions", "claude-test"), ("/v1/chat/completions", "ack")}
    calls = [r for r in result.requests if r.model_call]
    assert len(calls) == 6 and all(r.status == 200 and r.decision == "allowed" for r in calls)
    for record in calls:
        spoken = "openai" if record.host == "api.openai.com" else "anthropic"
        assert (record.model_call.protocol, record.model_call.translated_to) == \
            (spoken, {"openai": "anthropic", "anthropic": "openai"}[spoken])
    by = {(r.host, r.model_call.model, r.model_call.stream): r for r in calls}
    a_tool = by["api.anthropic.com", "claude-test", False].model_call
    assert (a_tool.input_tokens, a_tool.output_tokens) == tuple(out["anthropic_tool"][2:])
    assert by["api.openai.com", "policy-7b", True].model_call.output_tokens == len(WORDS) + 1

    refused = stack.run(env, UNTRANSLATED, ".py", backend="namespace")
    assert refused.stdout.startswith("not_found_error | detour: a translated model route serves only"), refused.stderr


def test_a_spent_budget_answers_each_vendors_own_quota_error(models):
    stack, base_url, own, _ = models
    env, _, _ = routed_env(stack, base_url, model_budget={"calls": 5, "tokens": 10})
    before = len(own.calls)
    result = stack.run(env, BUDGET, ".py", backend="namespace")
    assert result.exit_code == 0, result.stderr
    first, second = json.loads(result.stdout)
    assert first == "answered" and len(own.calls) == before + 1  # one call (4 + 7 tokens), not retried, then refused
    assert second[:2] == ["anthropic", 429] and second[2]["error"]["type"] == "rate_limit_error"
    refused = [r for r in result.requests if r.model_call and r.decision == "denied"]
    assert [(r.host, r.status, r.reason) for r in refused] == [
        ("api.anthropic.com", 429, "model budget spent: 11 of 10 tokens")]


def test_a_bad_model_route_is_one_clear_line(models, tmp_path: Path):
    """The command line refuses one with exit 2 and one line, and leaves the policy as it was; the
    policy file's reader (which the command line, the platform API and the proxy share) says why
    for each kind."""
    stack = models[0]
    env = stack.env()
    bad = tmp_path / "policy.json"
    bad.write_text(json.dumps({"models": [{"host": "api.openai.com"}]}))
    done = subprocess.run([DETOUR, "env", "policy", env, "--policy", str(bad)], capture_output=True, text=True,
                          env=os.environ | {"DETOUR_HOME": str(stack.state.home)})
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "give one target: base_url, vendor or replay" in done.stderr and not policy_file(stack.state, env).exists()
    for route, says in (({"host": "api.openai.com", "base_url": "ftp://x.test/v1"}, "is not an http(s) URL"),
                        ({"host": "slack.com", "vendor": True}, "which detour's replicas serve"),
                        ({"host": "generativelanguage.googleapis.com", "base_url": "http://127.0.0.1:1",
                          "protocol": "openai"}, "detour translates anthropic to openai, openai to anthropic only"),
                        ({"host": "api.openai.com", "vendor": True, "replay": "env-1"}, "give one target")):
        bad.write_text(json.dumps({"models": [route]}))
        with pytest.raises(InvalidPolicy, match=re.escape(says)):
            load_policy(bad)


ROLLOUT = r"""
import os, openai
from slack_sdk import WebClient
said = openai.OpenAI(api_key="unused").chat.completions.create(
    model="policy-7b", messages=[{"role": "user", "content": os.environ["DETOUR_PROMPT"]}]).choices[0].message.content
WebClient(token=os.environ["SLACK_TOKEN"]).chat_postMessage(channel="general", text=said)
"""


def test_a_rollout_carries_its_model_calls_for_the_trainer(models, tmp_path: Path):
    """The server's policy routes every environment's OpenAI calls (a trainer's policy server):
    a suite's rollout asks it, posts its answer, and its outcome holds the call and its tokens."""
    stack, _, own, _ = models
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({"id": "models", "name": "models", "service": "slack", "tests": [
        {"id": "t1", "name": "posts what its model said", "prompt": "say hello", "type": "actionEval",
         "seed_template": "slack_default", "assertions": [
             {"diff_type": "added", "entity": "messages", "where": {"message_text": {"contains": WORDS[0]}}},
             {"diff_type": "requested", "entity": "requests", "where": {"model_call.model": "policy-7b"},
              "expected_count": 1}]}]}))
    agent = tmp_path / "agent.py"
    agent.write_text(ROLLOUT)
    sandbox = stack.sandbox("namespace")
    found, tests = prepare_suite(stack.state, suite)
    outcome = run_test(stack.state, stack.info, sandbox, suite, found, tests[0], ["python", str(agent)])
    assert outcome.passed and outcome.score == 1.0, outcome.stderr_tail
    [call] = outcome.model_calls
    asked = own.calls[-1]["body"]
    assert (call.model_call.model, call.model_call.input_tokens, call.model_call.output_tokens) == \
        ("policy-7b", len(json.dumps(asked["messages"]).split()), 7)
    assert json.loads(outcome.model_dump_json())["model_calls"][0]["model_call"]["output_tokens"] == 7


FRAMEWORK = r"""
import json, os, urllib.request
from agents import Agent, Runner, function_tool, set_default_openai_api, set_tracing_disabled
from slack_sdk import WebClient
set_default_openai_api("chat_completions")
set_tracing_disabled(True)

@function_tool
def read_issue(identifier: str) -> str:
    '''A Linear issue's title.'''
    query = "query($id: String!) { issue(id: $id) { title } }"
    request = urllib.request.Request("https://api.linear.app/graphql", headers={
        "Authorization": os.environ["LINEAR_API_KEY"], "Content-Type": "application/json"},
        data=json.dumps({"query": query, "variables": {"id": identifier}}).encode())
    return json.load(urllib.request.urlopen(request))["data"]["issue"]["title"]

@function_tool
def post_to_slack(channel: str, text: str) -> str:
    '''Post a message in a Slack channel.'''
    return WebClient(token=os.environ["SLACK_TOKEN"]).chat_postMessage(channel=channel, text=text)["ts"]

agent = Agent(name="triage", instructions="Tell #engineering what an issue is about.", model="policy-7b",
              tools=[read_issue, post_to_slack])
print(Runner.run_sync(agent, "What is ENG-5 about? Tell #engineering.").final_output)
"""


def planner(seen: list[dict]) -> FastAPI:
    """A scripted policy model: read the issue, post what it says, then say it is done."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def plan(request: Request) -> dict:
        body = await request.json()
        seen.append(body)
        said = [m["content"] for m in body["messages"] if m["role"] == "tool"]
        step = [("read_issue", {"identifier": "ENG-5"}),
                ("post_to_slack", {"channel": "engineering", "text": f"ENG-5 is about: {said[:1]}"})]
        message = {"role": "assistant", "content": None, "tool_calls": [{
            "id": f"call_{len(said)}", "type": "function",
            "function": {"name": step[len(said)][0], "arguments": json.dumps(step[len(said)][1])}}]} \
            if len(said) < 2 else {"role": "assistant", "content": "Posted."}
        return {"id": f"chatcmpl-{len(said)}", "object": "chat.completion", "created": 1, "model": body["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if len(said) < 2 else "stop"}],
                "usage": {"prompt_tokens": 10 * (len(said) + 1), "completion_tokens": 5, "total_tokens": 10 * len(said) + 15}}
    return app


def test_an_openai_agents_sdk_agent_finishes_a_task_on_acme_with_its_routed_model(models, tmp_path: Path):
    """The OpenAI Agents SDK, in the sandbox's runtime, runs its loop against a routed policy model: the model reads ENG-5 in Linear and posts about
    it in Slack's #engineering through the agent's tools, as acme's acting person."""
    stack = models[0]
    seen: list[dict] = []
    env = stack.store.create("acme").env_id
    SecretStore(stack.state.secrets_dir).set(env, "OPENAI_API_KEY", "sk-proj-" + secrets.token_urlsafe(30),
                                             ["api.openai.com"])
    with serving(planner(seen)) as port:
        save_policy(policy_file(stack.state, env), Policy.model_validate(
            {"models": [{"host": "api.openai.com", "base_url": f"http://127.0.0.1:{port}/v1"}]}))
        result = stack.run(env, FRAMEWORK, ".py", backend="namespace")
    assert (result.exit_code, result.stdout.strip()) == (0, "Posted."), result.stderr[-3000:]
    [posted] = [r for r in result.diff.inserts if r["__table__"] == "slack.messages"]
    assert posted["message_text"] == "ENG-5 is about: ['Checkout fails for carts with more than 50 items']"
    assert posted["user_id"] == stack.store.get(env).acting_users["slack"]
    assert [(r.model_call.model, r.model_call.input_tokens) for r in result.model_calls] == \
        [("policy-7b", 10), ("policy-7b", 20), ("policy-7b", 30)]
    assert len(seen) == 3 and {r.service for r in result.requests if r.decision == "routed"} == {"linear", "slack"}


NODE_AGENT = r"""
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
const oa = new OpenAI(), an = new Anthropic(), ask = [{ role: "user", content: "post hello to general" }];
const schema = { type: "object", properties: { channel: { type: "string" } } };
const out = {};
const r = await oa.chat.completions.create({ model: "policy-7b", messages: ask,
  tools: [{ type: "function", function: { name: "post_message", parameters: schema } }] });
const call = r.choices[0].message.tool_calls[0].function;
out.openai_tool = [call.name, JSON.parse(call.arguments), r.usage.prompt_tokens, r.usage.completion_tokens];
let text = "";
for await (const chunk of await oa.chat.completions.create({ model: "policy-7b", messages: ask, stream: true })) {
  const piece = chunk.choices[0]?.delta?.content;
  if (piece && !text) await oa.chat.completions.create({ model: "ack", messages: ask });  // the first words are here
  text += piece || "";
}
out.openai_stream = text;
const m = await an.messages.create({ model: "claude-test", max_tokens: 64, messages: ask,
  tools: [{ name: "post_message", input_schema: schema }] });
out.anthropic_tool = [m.content[0].name, m.content[0].input, m.usage.input_tokens, m.usage.output_tokens];
text = "";
const stream = an.messages.stream({ model: "claude-test", max_tokens: 64, messages: ask });
for await (const event of stream) {
  if (event.type !== "content_block_delta") continue;
  if (!text) await an.messages.create({ model: "ack", max_tokens: 1, messages: ask });
  text += event.delta.text;
}
out.anthropic_stream = [text, (await stream.finalMessage()).usage.output_tokens];
out.key_shaped = [...new Set(JSON.stringify(process.env).match(/sk-ant-[A-Za-z0-9_-]{20,}/g))];
console.log(JSON.stringify(out));
"""


def test_the_node_sdks_reach_the_same_routes(models):
    """OpenAI's and Anthropic's official Node SDKs (detour's runtime has them), the same calls;
    Anthropic's go to an Anthropic-shaped server of the user's, which gets the placeholder: the
    key detour holds for api.anthropic.com goes nowhere else."""
    stack, base_url, own, vendor = models
    env, value, placeholder = routed_env(stack, base_url, {"base_url": base_url.removesuffix("/v1")})
    before, own_before = len(vendor.calls), len(own.calls)
    result = stack.run(env, NODE_AGENT, ".mjs", backend="namespace")
    assert result.exit_code == 0, result.stderr[-3000:]
    said, out = "".join(WORDS) + " acked", json.loads(result.stdout)
    asked = [r.model_call for r in result.model_calls if r.model_call.model != "ack"]
    assert out == {"openai_tool": ["post_message", {"channel": "general"}, asked[0].input_tokens, 7],
                   "openai_stream": said, "key_shaped": [placeholder],
                   "anthropic_tool": ["post_message", {"channel": "general"}, asked[2].input_tokens, 9],
                   "anthropic_stream": [said, len(WORDS) + 1]}
    assert [(c.model, c.stream, c.output_tokens) for c in asked] == [
        ("policy-7b", False, 7), ("policy-7b", True, None), ("claude-test", False, 9), ("claude-test", True, 6)]
    assert len(vendor.calls) == before and {c["credential"] for c in own.calls[own_before:]
                                            if c["path"] == "/v1/messages"} == {placeholder}
