"""The RL adapters over AgentDiff's early Linear suite (10 tasks), with a scripted policy whose
programs reach Linear only through detour's proxy: gymnasium's `make` and step loop, and
verifiers' own evaluation loop against a scripted stand-in model (chat completions on loopback).
Each reports a reward per task; every environment and sandbox is gone afterwards."""

import json
import threading
import time
from pathlib import Path

import pytest
import uvicorn
from fastapi import FastAPI, Request

SUITE = Path(__file__).parents[1] / "fixtures" / "early-suite" / "linear_bench.json"
AGENT = Path(__file__).parents[1] / "agents" / "linear_early_suite.py"
TESTS = [test["id"] for test in json.loads(SUITE.read_text())["tests"]]


def policy(test_id: str) -> str:
    """The scripted agent's program for one task (it reads the task's id as `detour suite run` gives it)."""
    return f"import os\nos.environ['DETOUR_TEST_ID'] = {test_id!r}\n" + AGENT.read_text()


def test_gymnasium_plays_the_suite_with_rewards_from_its_assertions(api_client):
    import gymnasium

    from detour.rl.gymnasium import ENV_ID  # importing it registers the environment

    env = gymnasium.make(ENV_ID, client=api_client, suite=SUITE)
    rewards, made = {}, []
    for _ in TESTS:
        prompt, info = env.reset()
        assert prompt == env.unwrapped.episode.test.prompt
        made.append(info["env_id"])
        said, reward, terminated, truncated, step = env.step(policy(info["test_id"]))
        rewards[info["test_id"]] = reward
        assert terminated and not truncated and step["score"] == 1.0, said
        assert {r["host"] for r in step["requests"]} == {"api.linear.app"}  # through the proxy, and only there
    assert rewards == {test: 1.0 for test in TESTS}

    prompt, info = env.reset(options={"test": "test_3"})
    returns = []
    for _ in range(5):  # a program that does nothing: no reward, and the time limit ends the episode
        said, reward, terminated, truncated, step = env.step("print('looking around')")
        returns.append(reward)
    assert said == "looking around\n" and returns == [0.0] * 5 and truncated and not terminated
    assert 0 < step["score"] < 1 or step["score"] == 0
    made.append(info["env_id"])
    env.close()
    assert not {e.env_id for e in api_client.environments.list()} & set(made)


def stand_in_model(prompts: dict[str, str], seen: list[dict]) -> FastAPI:
    """Chat completions, scripted: the task's program as a tool call, then a last word."""
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def complete(request: Request) -> dict:
        body = await request.json()
        seen.append(body)
        if body["messages"][-1]["role"] == "tool":
            message = {"role": "assistant", "content": "Done."}
        else:
            test_id = prompts[next(m["content"] for m in body["messages"] if m["role"] == "user")]
            arguments = json.dumps({"code": policy(test_id)})
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{test_id}", "type": "function",
                 "function": {"name": body["tools"][0]["function"]["name"], "arguments": arguments}}]}
        return {"id": "chatcmpl-1", "object": "chat.completion", "created": int(time.time()), "model": "scripted",
                "choices": [{"index": 0, "message": message,
                             "finish_reason": "tool_calls" if "tool_calls" in message else "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
    return app


@pytest.fixture
def model_server():
    prompts = {test["prompt"]: test["id"] for test in json.loads(SUITE.read_text())["tests"]}
    seen: list[dict] = []
    server = uvicorn.Server(uvicorn.Config(stand_in_model(prompts, seen), host="127.0.0.1", port=0,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}/v1", seen
    server.should_exit = True
    thread.join(10)


def test_verifiers_evaluates_the_suite_with_the_assertions_as_reward(api_client, model_server, monkeypatch):
    import verifiers as vf

    from detour.rl.verifiers import load_environment

    url, seen = model_server
    monkeypatch.setenv("STAND_IN_KEY", "stand-in")
    before = {e.env_id for e in api_client.environments.list()}
    env = load_environment(api_client, SUITE)
    results = env.evaluate_sync(client=vf.ClientConfig(api_base_url=url, api_key_var="STAND_IN_KEY", max_retries=0),
                                model="scripted", max_concurrent=3)
    rewards = {out["info"]["test_id"]: out["reward"] for out in results["outputs"]}
    assert rewards == {test: 1.0 for test in TESTS}, [out.get("error") for out in results["outputs"]]
    assert seen[0]["tools"][0]["function"]["name"] == "execute_code"
    assert "episode" not in json.dumps(seen[0]["tools"])  # the hidden argument stays hidden
    assert {e.env_id for e in api_client.environments.list()} == before
