"""Every hosted MCP server detour serves, driven by the official `mcp` SDK's own client: one
Python program, run unmodified in a docker sandbox of the `acme` world, opens a `ClientSession`
over the SDK's Streamable HTTP client (`streamable_http_client`, the sandbox runtime's, its 2.x
line) to each server with the credential the run gives for it, and makes the calls of the
shared case table (tests/e2e/mcp_cases.py, as Node's and the Agents SDK's tests do): one write
and one read per server, then the tool list. Each write is in the environment's diff.

On namespace the same client already reaches every server, with REST's view of each write:
test_mcp_hosted.py (GitHub, Linear, Jira, Slack, Stripe, and the SDK's 1.x line) and
test_mcp_workspace.py (Notion, Box, Gmail, Calendar, Drive, HubSpot); the run here would repeat
them, so `make test` runs the table on docker alone."""

from __future__ import annotations

import json

from tests.conftest import needs_docker
from tests.e2e.mcp_cases import check, python_program

DRIVE = r'''
import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


async def drive(name, spec):
    headers = {"Authorization": f"Bearer {os.environ[spec['token']]}"}
    async with httpx.AsyncClient(headers=headers) as http, \
            streamable_http_client(spec["url"], http_client=http) as streams, ClientSession(*streams[:2]) as mcp:
        server = field(await mcp.initialize(), "serverInfo").name
        picks = await perform(name, spec, mcp.call_tool)
        return {"server": server, "tools": len((await mcp.list_tools()).tools), "picks": picks}
'''


@needs_docker
def test_the_mcp_sdks_client_drives_every_hosted_mcp_server_on_docker(live_stack):
    result = live_stack.run(live_stack.env("acme"), python_program(DRIVE), ".py", backend="docker")
    assert result.exit_code == 0, result.stderr
    check(result, json.loads(result.stdout))
