"""verifiers' side (0.4, `verifiers.v1`): its own OpenEnv taskset pointed at detour's OpenEnv
server (one task per test, OpenEnv's reset naming it), and its own engine, OpenEnvEnv.run,
stepping each episode. The player, a model behind a harness in a real run, is the policy here:
its replies are the actions (a program, then submit); verifiers parses them, steps the server,
and records the summed reward on the trace, as it would for a model."""

import asyncio
import contextlib
import json
import sys
from dataclasses import dataclass, field

import verifiers
from serving import policies, serve
from verifiers.v1.tasksets.openenv.taskset import OpenEnvConfig, OpenEnvEnv, OpenEnvEnvConfig

from detour_client import StackClient

url, key, suite, agent, idle, *tests = sys.argv[1:]
base = serve(url, key, suite)


@dataclass
class Turn:
    last_reply: str
    terminated: bool = False


@dataclass
class Trace:
    """The two calls verifiers' engine makes of a trace here."""
    rewards: dict = field(default_factory=dict)
    stopped: str | None = None

    def record_reward(self, name: str, value: float) -> None:
        self.rewards[name] = value

    def stop(self, reason: str) -> None:
        self.stopped = reason


@dataclass
class Player:
    """Where the model would answer each turn: the policy's next action, as OpenEnv action JSON."""
    replies: list
    trace: Trace = field(default_factory=Trace)
    seen: list = field(default_factory=list)

    @contextlib.asynccontextmanager
    async def interaction(self, task):
        yield self

    async def turn(self, payload: str) -> Turn:
        self.seen.append(json.loads(payload))
        return Turn(self.replies.pop(0)) if self.replies else Turn("", terminated=True)


@dataclass
class Agents:
    player: Player


env = OpenEnvEnv(OpenEnvEnvConfig(taskset=OpenEnvConfig(id="openenv", base_url=base,
                                                         resets=[{"test_id": test} for test in tests])))
rewards = {}
for policy, program in policies(agent, idle).items():
    rewards[policy] = {}
    for task in env.taskset:
        test = task.data.reset["test_id"]
        player = Player([json.dumps({"code": program(test)}), json.dumps({"submit": True})])
        asyncio.run(env.run(task, Agents(player)))
        assert player.seen[0]["action_schema"]["title"] == "DetourAction" and player.trace.stopped is None
        assert player.seen[0]["observation"]["test_id"] == test
        rewards[policy][test] = player.trace.rewards["openenv_reward"]
print(json.dumps({"rewards": rewards, "verifiers": verifiers.__version__,
                  "left": StackClient(url, api_key=key).environments()}))
