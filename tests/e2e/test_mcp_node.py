"""Every hosted MCP server detour serves, driven by Node's official client: one ES module, run
unmodified in a sandbox of the `acme` world (namespace and docker), connects to each server with
@modelcontextprotocol/sdk's `Client` and `StreamableHTTPClientTransport` and the credential the
run gives for it, lists the tools, and calls one read tool and one write tool. The endpoints are
the packs' own (`McpSurface.hosts`), so a pack that gains an MCP server and no case here fails;
each write is in the environment's diff."""

from __future__ import annotations

import json

import pytest

from detour_core.registry import packs
from tests.conftest import needs_docker, needs_namespaces
from tests.e2e.official_clients import run_node_client

TITLE = "Made with Node's MCP client"

AGENT = r'''
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const TITLE = "Made with Node's MCP client";
const env = process.env;
// Each server: the credential the run gives for it, and its read and write, given `call`.
const CASES = {
  github: ["GITHUB_TOKEN", async (call) => ({
    wrote: (await call("issue_write", { method: "create", owner: "acme", repo: "api", title: TITLE })).title,
    read: (await call("get_me", {})).login })],
  linear: ["LINEAR_API_KEY", async (call) => ({
    wrote: (await call("create_issue", { title: TITLE, team: "ENG" })).title,
    read: (await call("get_team", { query: "ENG" })).name })],
  notion: ["NOTION_TOKEN", async (call) => {
    const task = (await call("notion-search", { query: "ENG-5" })).results[0];
    const made = await call("notion-create-pages", { parent: { data_source_id: task.parent.data_source_id },
                                                     pages: [{ properties: { title: TITLE } }] });
    return { wrote: made.pages.length, read: task.object };
  }],
  slack: ["SLACK_TOKEN", async (call) => ({
    wrote: (await call("slack_send_message", { channel_id: "C01ABCD1234", message: TITLE })).ok,
    read: (await call("slack_read_channel", { channel_id: "C01ABCD1234" })).messages[0].text })],
  jira: ["JIRA_API_TOKEN", async (call) => {
    const made = await call("createJiraIssue", { cloudId: env.JIRA_URL, projectKey: "ACME", issueTypeName: "Task",
                                                 summary: TITLE });
    return { wrote: made.key.split("-")[0],
             read: (await call("getJiraIssue", { cloudId: env.JIRA_URL, issueIdOrKey: made.key })).fields.summary };
  }],
  stripe: ["STRIPE_API_KEY", async (call) => ({
    wrote: (await call("create_customer", { name: TITLE })).name,
    read: (await call("list_products", { limit: 1 })).object })],
  box: ["BOX_DEVELOPER_TOKEN", async (call) => ({
    wrote: (await call("create_folder", { name: TITLE, parent_folder_id: "0" })).name,
    read: (await call("search_folders_by_name", { folder_name: TITLE })).entries.map((e) => e.name)[0] })],
  gmail: ["GOOGLE_OAUTH_ACCESS_TOKEN", async (call) => ({
    wrote: Boolean((await call("create_draft", { to: ["robert@acme.example"], subject: TITLE, body: "Hello" })).id),
    read: (await call("list_labels", {})).labels.some((l) => l.id === "INBOX") })],
  calendar: ["GOOGLE_OAUTH_ACCESS_TOKEN", async (call) => ({
    wrote: (await call("create_event", { summary: TITLE, startTime: "2026-12-01T10:00:00Z",
                                         endTime: "2026-12-01T11:00:00Z" })).summary,
    read: (await call("list_events", { query: TITLE, startTime: "2026-11-30T00:00:00Z" })).events.map((e) => e.summary)[0] })],
  drive: ["GOOGLE_OAUTH_ACCESS_TOKEN", async (call) => {
    const made = await call("create_file", { title: TITLE, mimeType: "application/vnd.google-apps.folder" });
    return { wrote: made.name, read: (await call("get_file_metadata", { fileId: made.id })).name };
  }],
  hubspot: ["HUBSPOT_ACCESS_TOKEN", async (call) => ({
    wrote: (await call("manage_crm_objects", { action: "create", objectType: "deals",
                                               properties: { dealname: TITLE } })).properties.dealname,
    read: (await call("search_crm_objects", { objectType: "deals", query: TITLE })).total })],
};

async function drive(name, url) {
  const [variable, steps] = CASES[name];
  const transport = new StreamableHTTPClientTransport(new URL(url),
    { requestInit: { headers: { Authorization: `Bearer ${env[variable]}` } } });
  const mcp = new Client({ name: "agent", version: "1.0.0" });
  await mcp.connect(transport);
  const call = async (tool, args) => {
    const result = await mcp.callTool({ name: tool, arguments: args });
    if (result.isError) throw new Error(`${name} ${tool}: ${result.content[0].text}`);
    return result.structuredContent ?? JSON.parse(result.content[0].text);
  };
  try {
    return { server: mcp.getServerVersion().name, tools: (await mcp.listTools()).tools.length, ...(await steps(call)) };
  } finally {
    await transport.terminateSession();
    await mcp.close();
  }
}

const out = {};
for (const [name, url] of Object.entries(ENDPOINTS)) out[name] = await drive(name, url);
console.log(JSON.stringify(out));
'''

# What each server's read and write answer, and the table its write lands in.
EXPECTED = {
    "github": ({"wrote": TITLE, "read": "ai-agent"}, "github.github_issues"),
    "linear": ({"wrote": TITLE, "read": "Engineering"}, "linear.issues"),
    "notion": ({"wrote": 1, "read": "page"}, "notion.notion_pages"),
    "slack": ({"wrote": True, "read": TITLE}, "slack.messages"),
    "jira": ({"wrote": "ACME", "read": TITLE}, "jira.jira_issue"),
    "stripe": ({"wrote": TITLE, "read": "list"}, "stripe.stripe_customers"),
    "box": ({"wrote": TITLE, "read": TITLE}, "box.box_folders"),
    "gmail": ({"wrote": True, "read": True}, "gmail.gmail_messages"),  # the draft's message
    "calendar": ({"wrote": TITLE, "read": TITLE}, "calendar.calendar_events"),
    "drive": ({"wrote": TITLE, "read": TITLE}, "drive.drive_files"),
    "hubspot": ({"wrote": TITLE, "read": 1}, "hubspot.hubspot_crm_objects_0_3"),
}


def endpoints() -> dict[str, str]:
    """Each pack's hosted MCP endpoint, as the proxy serves it."""
    return {pack.name: f"https://{pack.mcp.hosts[0]}" for pack in packs() if pack.mcp}


@pytest.mark.parametrize("backend", [pytest.param("namespace", marks=needs_namespaces),
                                     pytest.param("docker", marks=needs_docker)])
def test_nodes_official_client_drives_every_hosted_mcp_server(live_stack, request, backend):
    served = endpoints()
    assert set(served) == set(EXPECTED)
    source = f"const ENDPOINTS = {json.dumps(served)};\n" + AGENT
    result = run_node_client(live_stack, request, backend, "@modelcontextprotocol/sdk", source, "acme")
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    for name, (answers, table) in EXPECTED.items():
        assert {k: out[name][k] for k in answers} == answers, (name, out[name])
        assert out[name]["tools"] > 0 and out[name]["server"].startswith("detour"), out[name]
        assert any(TITLE in json.dumps(row) for row in result.diff.inserts if row["__table__"] == table), name
    hosts = {r.host for r in result.requests if r.mcp_call}
    assert hosts == {url.split("/")[2] for url in served.values()}
    assert {r.host for r in result.requests} == hosts  # nothing but MCP
