"""Every hosted MCP server detour serves, driven by Node's official client: one ES module, run
unmodified in a sandbox of the `acme` world (namespace and docker), connects to each server with
@modelcontextprotocol/sdk's `Client` and `StreamableHTTPClientTransport` and the credential the
run gives for it, lists the tools, and makes the calls of the shared case table
(tests/e2e/mcp_cases.py, given as JSON): one write and one read per server. The endpoints are the
packs' own (`McpSurface.hosts`), so a pack that gains an MCP server and no case fails; each write
is in the environment's diff."""

from __future__ import annotations

import json

import pytest

from tests.conftest import needs_docker, needs_namespaces
from tests.e2e.mcp_cases import check, program_cases
from tests.e2e.official_clients import run_node_client

AGENT = r'''
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

// A path "a.0.b" into the answers kept so far (and the run's variables as "env").
const at = (kept, path) => path.split(".").reduce((value, key) => value?.[key], kept) ?? null;
const resolve = (kept, value) =>
  typeof value === "string" && value.startsWith("$") ? at(kept, value.slice(1))
  : Array.isArray(value) ? value.map((item) => resolve(kept, item))
  : value && typeof value === "object" ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(kept, v)]))
  : value;

async function drive(name, { url, token, steps, picks }) {
  const transport = new StreamableHTTPClientTransport(new URL(url),
    { requestInit: { headers: { Authorization: `Bearer ${process.env[token]}` } } });
  const mcp = new Client({ name: "agent", version: "1.0.0" });
  await mcp.connect(transport);
  try {
    const kept = { env: process.env };
    for (const [as, tool, args] of steps) {
      const result = await mcp.callTool({ name: tool, arguments: resolve(kept, args) });
      if (result.isError) throw new Error(`${name} ${tool}: ${result.content[0].text}`);
      kept[as] = result.structuredContent ?? JSON.parse(result.content[0].text);
    }
    return { server: mcp.getServerVersion().name, tools: (await mcp.listTools()).tools.length,
             picks: Object.fromEntries(picks.map((path) => [path, at(kept, path)])) };
  } finally {
    await transport.terminateSession();
    await mcp.close();
  }
}

const out = {};
for (const [name, spec] of Object.entries(CASES)) out[name] = await drive(name, spec);
console.log(JSON.stringify(out));
'''


@pytest.mark.parametrize("backend", [pytest.param("namespace", marks=needs_namespaces),
                                     pytest.param("docker", marks=needs_docker)])
def test_nodes_official_client_drives_every_hosted_mcp_server(live_stack, request, backend):
    source = f"const CASES = {program_cases()};\n" + AGENT
    result = run_node_client(live_stack, request, backend, "@modelcontextprotocol/sdk", source, "acme")
    assert result.exit_code == 0, result.stderr
    check(result, json.loads(result.stdout))
