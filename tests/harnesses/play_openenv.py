"""OpenEnv's side: detour's suite served by OpenEnv's own server, played through its EnvClient
(one WebSocket session per episode: reset to a test, a program as the action, then submit)."""

import asyncio
import json
import sys

import httpx
from serving import policies, serve

from detour_client import StackClient
from detour_client.openenv import DetourAction, DetourEnv

url, key, suite, agent, idle, *tests = sys.argv[1:]
base = serve(url, key, suite)


async def reward(test: str, code: str) -> float:
    async with DetourEnv(base_url=base) as env:
        started = await env.reset(test_id=test)
        assert started.observation.test_id == test and started.observation.prompt
        await env.step(DetourAction(code=code))
        assert (await env.state()).test_id == test
        done = await env.step(DetourAction(submit=True))
        assert done.done and done.observation.total
        return done.reward


rewards = {policy: {test: asyncio.run(reward(test, program(test))) for test in tests}
           for policy, program in policies(agent, idle).items()}
print(json.dumps({"rewards": rewards, "schema": httpx.get(f"{base}/schema").json(),
                  "left": StackClient(url, api_key=key).environments()}))
