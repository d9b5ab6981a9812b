"""An MCP server, unmodified, in a detour sandbox: npm's @modelcontextprotocol/server-slack runs
under `detour run --stdio` and the official MCP Python SDK's client drives it over stdio as it
would drive the server itself. Its Slack calls reach the environment's replica, and the
environment's diff holds the message it posted."""

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from detour.stack import free_port
from tests.conftest import NODE_CLIENTS, needs_docker, needs_namespaces

DETOUR = str(Path(sys.executable).parent / "detour")
SERVER = NODE_CLIENTS / "@modelcontextprotocol" / "server-slack" / "dist" / "index.js"
IN_IMAGE = Path("/home/node_modules") / SERVER.relative_to(NODE_CLIENTS)  # where a derived image has it
# The server wants a bot token and a team id in its environment; the run's issued token is SLACK_TOKEN.
LAUNCH = 'SLACK_BOT_TOKEN="$SLACK_TOKEN" SLACK_TEAM_ID=T01 exec node "$0"'


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """A home and stack ports of its own, for the module (each backend's run its own environment);
    the background stack its runs start is stopped after."""
    ports: set[int] = set()
    env = os.environ | {"DETOUR_HOME": str(tmp_path_factory.mktemp("mcp") / "home"), "DETOUR_STACK_IDLE_S": "120",
                        "DETOUR_PROXY_PORT": str(free_port("127.0.0.1", ports)),
                        "DETOUR_REPLICA_PORT": str(free_port("127.0.0.1", ports))}
    yield env
    subprocess.run([DETOUR, "stack", "stop"], env=env, capture_output=True, timeout=60)


def detour(env: dict, *args: str) -> str:
    done = subprocess.run([DETOUR, *args], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


async def drive(server: StdioServerParameters) -> tuple[set[str], list[str], dict]:
    """What an MCP host does: initialize, list the tools, list channels, post in #general."""
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {tool.name for tool in (await session.list_tools()).tools}
        listed = json.loads((await session.call_tool("slack_list_channels", {})).content[0].text)
        general = next(c["id"] for c in listed["channels"] if c["name"] == "general")
        posted = await session.call_tool("slack_post_message", {"channel_id": general, "text": "hello over MCP"})
        return tools, [c["name"] for c in listed["channels"]], json.loads(posted.content[0].text)


@pytest.mark.parametrize("backend", ["process", pytest.param("namespace", marks=needs_namespaces),
                                     pytest.param("docker", marks=needs_docker)])
def test_the_slack_mcp_server_runs_unmodified_in_a_sandbox(home, backend, request):
    """On docker, in an image derived from tests/node_clients/package.json, as a user would."""
    if not SERVER.exists():
        pytest.fail(f"run `make test` (it installs {NODE_CLIENTS.parent}/package.json)")
    env = f"mcp-{backend}"
    detour(home, "env", "create", "--template", "slack_default", "--id", env)
    runtime = ["--image", request.getfixturevalue("node_clients_image"), "--", "sh", "-c", LAUNCH, str(IN_IMAGE)] \
        if backend == "docker" else ["--node-modules", str(NODE_CLIENTS), "--", "sh", "-c", LAUNCH, str(SERVER)]
    server = StdioServerParameters(command=DETOUR, env=home, args=[
        "run", "--stdio", "--env", env, "--backend", backend, *runtime])
    tools, channels, posted = asyncio.run(drive(server))
    assert {"slack_list_channels", "slack_post_message", "slack_get_channel_history"} <= tools
    assert "general" in channels and posted["ok"] is True
    diff = json.loads(detour(home, "env", "diff", env))
    assert [(row["__table__"], row["message_text"]) for row in diff["inserts"]] == [("messages", "hello over MCP")]
    records = [json.loads(line) for line in detour(home, "logs", "--env", env, "--json").splitlines()]
    assert {(r["host"], r["path"].split("?")[0], r["decision"]) for r in records} == {
        ("slack.com", "/api/conversations.list", "routed"), ("slack.com", "/api/chat.postMessage", "routed")}
