"""Every hosted MCP server detour serves, driven by an agent framework's remote-MCP client: one
Python program, run unmodified in a sandbox of the `acme` world (namespace and docker), loads
each server as the OpenAI Agents SDK's `agents.mcp.MCPServerStreamableHttp` (the sandbox
runtime's) with the credential the run gives for it, lists the tools and makes the calls of the
shared case table (tests/e2e/mcp_cases.py, given as JSON, as Node's test does): one write and one
read per server. Each write is in the environment's diff."""

from __future__ import annotations

import json

import pytest

from tests.conftest import needs_docker, needs_namespaces
from tests.e2e.mcp_cases import check, program_cases

AGENT = r'''
import asyncio, json, os
from agents.mcp import MCPServerStreamableHttp

CASES = json.loads(CASES_JSON)


def field(result, name):
    """The mcp SDK's 1.x spells a result's fields in camel case, 2.x in snake case."""
    snake = "".join("_" + c.lower() if c.isupper() else c for c in name)
    return getattr(result, snake) if hasattr(result, snake) else getattr(result, name)


def at(kept, path):
    """A path "a.0.b" into the answers kept so far (and the run's variables as "env")."""
    value = kept
    for key in path.split("."):
        try:
            value = value[int(key)] if isinstance(value, list) else value[key]
        except (KeyError, IndexError, TypeError, ValueError):
            return None
    return value


def resolve(kept, value):
    if isinstance(value, str) and value.startswith("$"):
        return at(kept, value[1:])
    if isinstance(value, list):
        return [resolve(kept, item) for item in value]
    if isinstance(value, dict):
        return {key: resolve(kept, item) for key, item in value.items()}
    return value


async def drive(name, spec):
    params = {"url": spec["url"], "headers": {"Authorization": f"Bearer {os.environ[spec['token']]}"}}
    async with MCPServerStreamableHttp(params=params, name=name) as server:
        kept = {"env": dict(os.environ)}
        for as_, tool, args in spec["steps"]:
            result = await server.call_tool(tool, resolve(kept, args))
            if field(result, "isError"):
                raise SystemExit(f"{name} {tool}: {result.content[0].text}")
            kept[as_] = field(result, "structuredContent") or json.loads(result.content[0].text)
        return {"server": field(server.server_initialize_result, "serverInfo").name,
                "tools": len(await server.list_tools()),
                "picks": {path: at(kept, path) for path in spec["picks"]}}


async def main():
    print(json.dumps({name: await drive(name, spec) for name, spec in CASES.items()}))

asyncio.run(main())
'''


@pytest.mark.parametrize("backend", [pytest.param("namespace", marks=needs_namespaces),
                                     pytest.param("docker", marks=needs_docker)])
def test_the_agents_sdks_mcp_client_drives_every_hosted_mcp_server(live_stack, backend):
    source = f"CASES_JSON = {program_cases()!r}\n" + AGENT
    result = live_stack.run(live_stack.env("acme"), source, ".py", backend=backend)
    assert result.exit_code == 0, result.stderr
    check(result, json.loads(result.stdout))
