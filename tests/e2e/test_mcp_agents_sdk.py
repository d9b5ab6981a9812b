"""Every hosted MCP server detour serves, driven by an agent framework's remote-MCP client: one
Python program, run unmodified in a sandbox of the `acme` world (namespace and docker), loads
each server as the OpenAI Agents SDK's `agents.mcp.MCPServerStreamableHttp` (the sandbox
runtime's) with the credential the run gives for it, lists the tools and makes the calls of the
shared case table (tests/e2e/mcp_cases.py, as Node's and the `mcp` SDK's tests do): one write
and one read per server. Each write is in the environment's diff."""

from __future__ import annotations

import json

import pytest

from tests.conftest import needs_docker, needs_namespaces
from tests.e2e.mcp_cases import check, python_program

DRIVE = r'''
from agents.mcp import MCPServerStreamableHttp


async def drive(name, spec):
    params = {"url": spec["url"], "headers": {"Authorization": f"Bearer {os.environ[spec['token']]}"}}
    async with MCPServerStreamableHttp(params=params, name=name) as server:
        picks = await perform(name, spec, server.call_tool)
        return {"server": field(server.server_initialize_result, "serverInfo").name,
                "tools": len(await server.list_tools()), "picks": picks}
'''


@pytest.mark.parametrize("backend", [pytest.param("namespace", marks=needs_namespaces),
                                     pytest.param("docker", marks=needs_docker)])
def test_the_agents_sdks_mcp_client_drives_every_hosted_mcp_server(live_stack, backend):
    result = live_stack.run(live_stack.env("acme"), python_program(DRIVE), ".py", backend=backend)
    assert result.exit_code == 0, result.stderr
    check(result, json.loads(result.stdout))
