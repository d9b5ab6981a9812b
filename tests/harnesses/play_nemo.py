"""NeMo Gym's side: detour's resources server (detour_client.nemo_gym) behind NeMo Gym's own
simple_agent, the suite's rows collected by NeMo Gym's own rollout collection
(RolloutCollectionHelper.run_examples, through its head server and its aiohttp client), as `gym`
collects them: the agent seeds the session, posts each of the model's execute_code calls to the
resources server, then verifies. The model, a policy server in a real run, is a scripted Responses
API server here: the policy's program as one execute_code call, then a last word."""

import asyncio
import json
import os
import socket
import sys
import threading

import httpx
import uvicorn
from fastapi import FastAPI
from nemo_gym.config_types import BaseServerConfig
from nemo_gym.global_config import NEMO_GYM_CONFIG_DICT_ENV_VAR_NAME
from nemo_gym.rollout_collection import RolloutCollectionHelper
from nemo_gym.server_utils import HeadServer, ServerClient
from omegaconf import OmegaConf
from responses_api_agents.simple_agent.app import SimpleAgent, SimpleAgentConfig
from serving import policies

from detour_client import StackClient
from detour_client.nemo_gym import DetourResourcesServer, DetourResourcesServerConfig, rows

url, key, suite, agent, idle, *tests = sys.argv[1:]
HOST = "127.0.0.1"
sockets = {name: socket.create_server((HOST, 0)) for name in ("head", "detour", "agent", "model")}
port = {name: s.getsockname()[1] for name, s in sockets.items()}
CONFIG = {
    "head_server": {"host": HOST, "port": port["head"]},
    "detour": {"resources_servers": {"detour": {
        "host": HOST, "port": port["detour"], "entrypoint": "app.py", "domain": "agent", "suite": suite,
        "stack_url": url, "api_key": key, "run_options": {"backend": "namespace"}}}},
    "detour_agent": {"responses_api_agents": {"simple_agent": {
        "host": HOST, "port": port["agent"], "entrypoint": "app.py", "max_steps": 4,
        "resources_server": {"type": "resources_servers", "name": "detour"},
        "model_server": {"type": "responses_api_models", "name": "policy_model"}}}},
    "policy_model": {"responses_api_models": {"scripted": {
        "host": HOST, "port": port["model"], "entrypoint": "app.py"}}},
}
os.environ[NEMO_GYM_CONFIG_DICT_ENV_VAR_NAME] = OmegaConf.to_yaml(CONFIG)  # how NeMo Gym hands its servers the config
by_prompt = {test["prompt"]: str(test["id"]) for test in json.load(open(suite))["tests"]}
policy = {}  # the program the scripted model writes for a test, set per policy


def responses_api(**fields) -> dict:
    return {"id": "resp_1", "object": "response", "created_at": 0, "model": "scripted", "parallel_tool_calls": False,
            "tool_choice": "auto", "tools": [], "status": "completed", **fields}


model = FastAPI()


@model.post("/v1/responses")
async def respond(body: dict) -> dict:
    """The task's program as an execute_code call; once its output is in, a last word."""
    if any(item.get("type") == "function_call_output" for item in body["input"]):
        return responses_api(output=[{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                                      "content": [{"type": "output_text", "text": "Done.", "annotations": []}]}])
    test = by_prompt[body["input"][0]["content"]]
    return responses_api(output=[{"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "execute_code",
                                  "arguments": json.dumps({"code": policy["program"](test)}), "status": "completed"}])


def webserver(app: FastAPI, name: str) -> tuple[uvicorn.Server, socket.socket]:
    """uvicorn over the app, and the loopback socket already bound for it (its port is in CONFIG)."""
    return uvicorn.Server(uvicorn.Config(app, log_level="warning")), sockets[name]


async def main() -> dict:
    client = ServerClient(head_server_config=BaseServerConfig(**CONFIG["head_server"]),
                          global_config_dict=OmegaConf.create(CONFIG))
    detour = DetourResourcesServer(config=DetourResourcesServerConfig(
        name="detour", **CONFIG["detour"]["resources_servers"]["detour"]), server_client=client)
    agent_server = SimpleAgent(config=SimpleAgentConfig(
        name="detour_agent", **CONFIG["detour_agent"]["responses_api_agents"]["simple_agent"]), server_client=client)
    head_server = HeadServer(config=BaseServerConfig(**CONFIG["head_server"]))
    head, head_socket = webserver(head_server.setup_webserver(), "head")
    threading.Thread(target=head.run, kwargs={"sockets": [head_socket]}, daemon=True).start()
    served = [webserver(detour.setup_webserver(), "detour"), webserver(agent_server.setup_webserver(), "agent"),
              webserver(model, "model")]
    running = [asyncio.create_task(server.serve(sockets=[s])) for server, s in served]
    while not all(server.started for server, _ in served) or not head.started:
        await asyncio.sleep(0.05)
    base = f"http://{HOST}:{port['detour']}"
    async with httpx.AsyncClient(base_url=base) as http:  # bad input: one clear line each
        unknown = await http.post("/seed_session", json={"test_id": "nope"})
        unseeded = await http.post("/execute_code", json={"code": "pass"})
        # a session seeded and never verified (a rollout abandoned): the server's shutdown removes it
        (await http.post("/seed_session", json={"test_id": tests[0]})).raise_for_status()
    report = {"refused": [[r.status_code, r.json()["detail"]] for r in (unknown, unseeded)], "rewards": {}}
    selected = [row for row in rows(suite, "detour_agent") if row["test_id"] in tests]
    for name, program in policies(agent, idle).items():
        policy["program"] = program
        report["rewards"][name] = {}
        for future in RolloutCollectionHelper().run_examples(selected, BaseServerConfig(**CONFIG["head_server"])):
            row, result = await future
            assert result["test_id"] == row["test_id"] and result["total"]
            called = [o for o in result["response"]["output"] if o["type"] == "function_call_output"]
            assert len(called) == 1 and "exit_code" in json.loads(called[0]["output"])
            report["rewards"][name][row["test_id"]] = result["reward"]
    report["abandoned"] = len(await asyncio.to_thread(StackClient(url, api_key=key).environments))
    for server, _ in served:
        server.should_exit = True
    await asyncio.gather(*running)
    head.should_exit = True
    return report


report = asyncio.run(main())
print(json.dumps({**report, "left": StackClient(url, api_key=key).environments()}))
