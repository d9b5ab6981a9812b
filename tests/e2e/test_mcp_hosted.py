"""The vendors' hosted MCP servers at their real hosts: an agent in a sandbox connects to
`https://api.githubcopilot.com/mcp/` with the official `mcp` SDK's Streamable HTTP client, as it
would to GitHub's, and its tools act on the environment's state through the replica's own REST
handlers: an issue made over MCP is in the REST answer and in the diff, one made over REST in
MCP's answer. Clients of the SDK's 1.x and 2.x lines both connect. A published tool the
replica does not back says so; no token is 401. Linear's server the same way with Node's
@modelcontextprotocol/sdk client, and with LangChain's MCP adapters as an agent framework would.
(Every server, on namespace and docker, is driven from the shared case table by the `mcp` SDK's,
Node's and the Agents SDK's clients: test_mcp_python.py, test_mcp_node.py, test_mcp_agents_sdk.py.)"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from detour_core.faults import Fault
from mock_services.request_rows import request_rows
from sandbox.namespace import NamespaceSandbox
from sandbox.runtimes import host_runtime
from tests.conftest import needs_namespaces
from tests.e2e.official_clients import run_node_client

GITHUB_AGENT = r'''
import asyncio, json, os
from importlib.metadata import version

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

URL = "https://api.githubcopilot.com/mcp/"
TOKEN = os.environ["GITHUB_TOKEN"]
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bare", "version": "0"}}}




def spelled(result, name):
    """The SDK's 1.x spells fields in camel case (isError), 2.x in snake case (is_error)."""
    snake = "".join("_" + c.lower() if c.isupper() else c for c in name)
    return getattr(result, snake) if hasattr(result, snake) else getattr(result, name)


async def main():
    out = {"sdk": version("mcp").split(".")[0]}
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}) as http, \
            streamable_http_client(URL, http_client=http) as streams, ClientSession(*streams[:2]) as mcp:
        out["server"] = spelled(await mcp.initialize(), "serverInfo").name
        out["tools"] = sorted({"issue_read", "issue_write", "search_issues", "get_me"}
                              & {t.name for t in (await mcp.list_tools()).tools})
        made = await mcp.call_tool("issue_write", {"method": "create", "owner": "acme", "repo": "api",
                                                   "title": "Made over MCP", "labels": ["bug"]})
        number = json.loads(made.content[0].text)["number"]
        rest = httpx.Client(base_url="https://api.github.com/repos/acme/api", headers={"Authorization": f"token {TOKEN}"})
        out["rest_sees"] = rest.get(f"/issues/{number}").json()["title"]
        other = rest.post("/issues", json={"title": "Made over REST"}).json()["number"]
        seen = await mcp.call_tool("issue_read", {"method": "get", "owner": "acme", "repo": "api",
                                                  "issue_number": other})
        out["mcp_sees"] = json.loads(seen.content[0].text)["title"]
        found = await mcp.call_tool("search_issues", {"query": "Made over", "owner": "acme", "repo": "api"})
        out["found"] = sorted(i["title"] for i in json.loads(found.content[0].text)["items"])
        out["me"] = json.loads((await mcp.call_tool("get_me", {})).content[0].text)["login"]
        lacking = await mcp.call_tool("list_gists", {})
        out["lacking"] = [spelled(lacking, "isError"), lacking.content[0].text]
        wrong = await mcp.call_tool("issue_read", {"method": "get", "owner": "acme"})
        out["invalid"] = spelled(wrong, "isError")
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}) as http, \
            streamable_http_client(URL + "readonly", http_client=http) as streams, ClientSession(*streams[:2]) as mcp:
        await mcp.initialize()
        listed = {t.name for t in (await mcp.list_tools()).tools}
        refused = await mcp.call_tool("issue_write", {"method": "create", "owner": "acme", "repo": "api", "title": "x"})
        out["readonly"] = ["issue_read" in listed, "issue_write" in listed, spelled(refused, "isError")]
    async with httpx.AsyncClient() as bare:
        answer = await bare.post(URL, json=INITIALIZE, headers={"Accept": "application/json, text/event-stream"})
        out["anonymous"] = [answer.status_code, answer.headers.get("www-authenticate", "")[:7]]
    print(json.dumps(out))

asyncio.run(main())
'''


@pytest.fixture(scope="module")
def own_venv(live_stack):
    """A sandbox whose Python is detour's own venv: the SDK's 1.x line (mitmproxy's pins keep it
    there); the sandbox runtime has the newest, 2.x."""
    return NamespaceSandbox(live_stack.state, runtime=host_runtime(python=Path(sys.executable)))


def run_agent(live_stack, template: str, agent: str, sandbox=None):
    """`agent` in a namespace sandbox, in a new environment of `template`: what it printed (JSON),
    and the run."""
    result = live_stack.run(live_stack.env(template), agent, ".py", backend="namespace", sandbox=sandbox)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout), result


@needs_namespaces
def test_githubs_hosted_mcp_server_over_the_replicas_state(live_stack, api_client):
    """With the sandbox runtime's SDK (its 2.x line; the LangChain and OAuth tests below run the
    1.x line, which detour's own venv keeps)."""
    env = live_stack.env("github_default")  # a fault aimed at one tool: a latency of 1 ms, recorded
    api_client.environments.faults(env, [Fault(kind="latency", match="POST api.githubcopilot.com/mcp/*",
                                               operation="get_me", latency_ms=1)])
    result = live_stack.run(env, GITHUB_AGENT, ".py", backend="namespace")
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["sdk"] == "2"
    assert out["server"] == "detour-github"
    assert out["tools"] == ["get_me", "issue_read", "issue_write", "search_issues"]
    assert (out["rest_sees"], out["mcp_sees"]) == ("Made over MCP", "Made over REST")
    assert out["found"] == ["Made over MCP", "Made over REST"]
    assert out["lacking"] == [True, "tool list_gists is not available: detour's github replica does not back it"]
    assert out["invalid"] is True
    assert out["anonymous"] == [401, "Bearer "]
    assert out["readonly"] == [True, False, True]  # /mcp/readonly: the tools that change nothing
    made = sorted((r["title"], r["labels"]) for r in result.diff.inserts if r["__table__"] == "github_issues")
    assert made == [("Made over MCP", ["bug"]), ("Made over REST", [])]
    assert out["me"] == "ai-agent"
    mcp_calls = [r for r in result.requests if r.host == "api.githubcopilot.com"]
    assert {(r.path, r.decision) for r in mcp_calls} == {("/mcp/", "routed"), ("/mcp/readonly", "routed")}
    # a session each: the client's GET stream (200, quiet), and its DELETE when it left
    others = sorted((r.method, r.status) for r in mcp_calls if r.method != "POST")
    assert others == [("DELETE", 200)] * 2 + [("GET", 200)] * 2
    named = [(r.mcp_call.method, r.mcp_call.tool, r.fault is not None) for r in mcp_calls if r.mcp_call]
    assert named[:3] == [("initialize", None, False), ("notifications/initialized", None, False),
                         ("tools/list", None, False)]
    tools = [(tool, faulted) for method, tool, faulted in named if method == "tools/call"]
    assert tools == [("issue_write", False), ("issue_read", False), ("search_issues", False), ("get_me", True),
                     ("list_gists", False), ("issue_read", False), ("issue_write", False)]
    rows = [row["tool"] for row in request_rows(live_stack.state, env) if row["host"] == "api.githubcopilot.com"]
    assert [tool for tool in rows if tool] == [tool for tool, _ in tools]  # the DSL's `requests` entity


LINEAR_AGENT = r'''
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const key = process.env.LINEAR_API_KEY;
const transport = new StreamableHTTPClientTransport(new URL("https://mcp.linear.app/mcp"),
  { requestInit: { headers: { Authorization: `Bearer ${key}` } } });
const mcp = new Client({ name: "agent", version: "1.0.0" });
await mcp.connect(transport);
const call = async (name, args) => JSON.parse((await mcp.callTool({ name, arguments: args })).content[0].text);
const graphql = async (query, variables) => (await (await fetch("https://api.linear.app/graphql", {
  method: "POST", headers: { "Content-Type": "application/json", Authorization: key },
  body: JSON.stringify({ query, variables }) })).json()).data;

const out = { tools: (await mcp.listTools()).tools.map((t) => t.name).filter((n) => n.endsWith("_issue")).sort() };
const made = await call("create_issue", { title: "Made over MCP", team: "Engineering", assignee: "john@example.com",
                                          state: "Todo", labels: ["Urgent"] });
out.graphql_sees = (await graphql("query($id: String!) { issue(id: $id) { title assignee { name } state { name } } }",
                                  { id: made.identifier })).issue;
const eng = (await call("get_team", { query: "ENG" })).id;
await graphql("mutation($team: String!) { issueCreate(input: { title: \"Made over GraphQL\", teamId: $team }) { success } }",
              { team: eng });
out.mcp_sees = (await call("list_issues", { query: "Made over", team: "ENG" })).map((i) => i.title).sort();
await call("create_comment", { issueId: made.identifier, body: "Picked up over MCP" });
out.comments = (await call("list_comments", { issueId: made.identifier })).map((c) => c.body);
out.lacking = (await mcp.callTool({ name: "list_documents", arguments: {} })).isError;
await mcp.close();
console.log(JSON.stringify(out));
'''


@needs_namespaces
def test_linears_hosted_mcp_server_with_nodes_official_client(live_stack, request):
    """On namespace: on docker, Node's client drives Linear's server with the others
    (test_mcp_node.py)."""
    result = run_node_client(live_stack, request, "namespace", "@modelcontextprotocol/sdk", LINEAR_AGENT,
                             "linear_default")
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["tools"] == ["create_issue", "get_issue", "update_issue"]
    assert out["graphql_sees"] == {"title": "Made over MCP", "assignee": {"name": "John Doe"}, "state": {"name": "Todo"}}
    assert out["mcp_sees"] == ["Made over GraphQL", "Made over MCP"]
    assert out["comments"] == ["Picked up over MCP"]
    assert out["lacking"] is True
    made = {r["title"] for r in result.diff.inserts if r["__table__"] == "issues"}
    assert made == {"Made over MCP", "Made over GraphQL"}
    assert [r["body"] for r in result.diff.inserts if r["__table__"] == "comments"] == ["Picked up over MCP"]
    assert {r.host for r in result.requests} == {"mcp.linear.app", "api.linear.app"}


LANGCHAIN_AGENT = r'''
import asyncio, json, os
from langchain_mcp_adapters.client import MultiServerMCPClient

client = MultiServerMCPClient({"linear": {
    "transport": "streamable_http", "url": "https://mcp.linear.app/mcp",
    "headers": {"Authorization": f"Bearer {os.environ['LINEAR_API_KEY']}"}}})


async def main():
    tools = {tool.name: tool for tool in await client.get_tools()}
    made = await tools["create_issue"].ainvoke({"title": "Made by a LangChain agent", "team": "ENG"})
    found = await tools["list_issues"].ainvoke({"query": "LangChain"})
    print(json.dumps({"tools": len(tools), "made": str(made), "found": str(found)}))

asyncio.run(main())
'''


@needs_namespaces
def test_langchains_remote_mcp_client_reaches_linears_server(live_stack, own_venv):
    """LangChain's MCP adapters (langchain-mcp-adapters) as an agent framework loads a hosted
    server's tools: detour's venv has it, so the sandbox runs that Python."""
    out, result = run_agent(live_stack, "linear_default", LANGCHAIN_AGENT, own_venv)
    assert out["tools"] == 18
    assert "ENG-" in out["made"] and "Made by a LangChain agent" in out["found"]
    assert [r["title"] for r in result.diff.inserts if r["__table__"] == "issues"] == ["Made by a LangChain agent"]


OAUTH_AGENT = r'''
import asyncio, json, os
from importlib.metadata import version
from urllib.parse import parse_qs, urlparse
import httpx
from mcp import ClientSession
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientMetadata

URL = "https://mcp.linear.app/mcp"


class Memory(TokenStorage):
    tokens = client = None
    async def get_tokens(self): return self.tokens
    async def set_tokens(self, tokens): self.tokens = tokens
    async def get_client_info(self): return self.client
    async def set_client_info(self, client): self.client = client


storage, approved = Memory(), {}


async def open_browser(url):  # there is none: the authorization endpoint answers at once
    async with httpx.AsyncClient() as http:
        query = parse_qs(urlparse((await http.get(url)).headers["location"]).query)
    approved.update(code=query["code"][0], state=query["state"][0])


async def main():
    auth = OAuthClientProvider(URL, OAuthClientMetadata(client_name="agent", redirect_uris=["http://localhost:3030/cb"]),
                               storage, open_browser, lambda: asyncio.sleep(0, (approved["code"], approved["state"])))
    async with httpx.AsyncClient(auth=auth) as http, streamable_http_client(URL, http_client=http) as streams, \
            ClientSession(*streams[:2]) as session:
        await session.initialize()
        made = await session.call_tool("create_issue", {"title": "Made after OAuth", "team": "ENG"})
    print(json.dumps({"sdk": version("mcp").split(".")[0], "registered": storage.client is not None,
                      "token_is_the_persons": storage.tokens.access_token == os.environ["LINEAR_API_KEY"],
                      "made": json.loads(made.content[0].text)["title"]}))

asyncio.run(main())
'''


@needs_namespaces
def test_an_mcp_clients_own_oauth_flow_gets_the_acting_persons_token(live_stack, own_venv):
    """The SDK's OAuthClientProvider (its 1.x line): a 401 names the metadata, the client registers itself,
    `/authorize` redirects at once with a code (no browser), `/token` gives the acting person's
    token, and the issue it makes is theirs."""
    out, result = run_agent(live_stack, "linear_default", OAUTH_AGENT, own_venv)
    assert out == {"sdk": "1", "registered": True, "token_is_the_persons": True, "made": "Made after OAuth"}
    made = next(r for r in result.diff.inserts if r["__table__"] == "issues")
    assert made["creatorId"] == live_stack.store.get(result.env_id).acting_user
    paths = [r.path.split("?")[0] for r in result.requests]
    assert {"/.well-known/oauth-authorization-server", "/register", "/authorize", "/token"} <= set(paths)


BUSINESS_AGENT = r'''
import asyncio, json, os
from contextlib import asynccontextmanager
import httpx
import stripe
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from slack_sdk import WebClient

SITE = os.environ["JIRA_URL"]
out = {}


@asynccontextmanager
async def connected(url, token):
    """An initialized session with a hosted MCP server, the token as a bearer token."""
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http, \
            streamable_http_client(url, http_client=http) as streams, ClientSession(*streams[:2]) as session:
        await session.initialize()
        yield session


async def jira():
    rest = httpx.Client(base_url=SITE + "/rest/api/3", auth=(os.environ["JIRA_EMAIL"], os.environ["JIRA_API_TOKEN"]))
    async with connected("https://mcp.atlassian.com/v1/mcp", os.environ["JIRA_API_TOKEN"]) as mcp:
        call = lambda name, **args: mcp.call_tool(name, {"cloudId": SITE, **args})
        made = json.loads((await call("createJiraIssue", projectKey="ACME", issueTypeName="Bug",
                                      summary="Made over MCP")).content[0].text)
        other = rest.post("/issue", json={"fields": {"project": {"key": "ACME"}, "issuetype": {"name": "Task"},
                                                    "summary": "Made over REST"}}).json()["key"]
        await call("addCommentToJiraIssue", issueIdOrKey=other, commentBody="Seen over MCP")
        seen = json.loads((await call("getJiraIssue", issueIdOrKey=other)).content[0].text)
        lacking = await call("getConfluenceSpaces")
    out["jira"] = {"rest_sees": rest.get(f"/issue/{made['key']}").json()["fields"]["summary"],
                   "mcp_sees": seen["fields"]["summary"], "self": made["self"].split("/rest/")[0] == SITE,
                   "lacking": lacking.content[0].text}


async def slack():
    api = WebClient(token=os.environ["SLACK_TOKEN"])
    async with connected("https://mcp.slack.com/mcp", os.environ["SLACK_TOKEN"]) as mcp:
        call = lambda name, **args: mcp.call_tool(name, args)
        sent = json.loads((await call("slack_send_message", channel_id="C01ABCD1234", message="Sent over MCP")).content[0].text)
        api.chat_postMessage(channel="C01ABCD1234", text="Posted with slack_sdk", thread_ts=sent["ts"])
        thread = json.loads((await call("slack_read_thread", channel_id="C01ABCD1234", message_ts=sent["ts"])).content[0].text)
        failed = await call("slack_read_channel", channel_id="C0NOSUCHONE")
    out["slack"] = {"rest_sees": api.conversations_history(channel="C01ABCD1234", limit=1)["messages"][0]["text"],
                    "mcp_sees": [m["text"] for m in thread["messages"]], "failed": failed.content[0].text}


async def stripe_():
    stripe.api_key = os.environ["STRIPE_API_KEY"]
    async with connected("https://mcp.stripe.com", os.environ["STRIPE_API_KEY"]) as mcp:
        made = json.loads((await mcp.call_tool("create_customer", {"name": "Ada Lovelace", "email": "ada@example.com"}))
                          .content[0].text)
        stripe.Product.create(name="Made with stripe-python")
        products = json.loads((await mcp.call_tool("list_products", {"limit": 100})).content[0].text)["data"]
    out["stripe"] = {"rest_sees": stripe.Customer.retrieve(made["id"]).name,
                     "mcp_sees": "Made with stripe-python" in [p["name"] for p in products]}


async def main():
    for step in (jira, slack, stripe_):
        await step()
    print(json.dumps(out))

asyncio.run(main())
'''


@needs_namespaces
def test_atlassians_slacks_and_stripes_hosted_mcp_servers_over_their_replicas(live_stack):
    """One program on `acme`: each server's write in REST's answer, REST's write in its answer;
    Stripe's server at the host's root."""
    out, result = run_agent(live_stack, "acme", BUSINESS_AGENT)
    assert out["jira"] == {
        "rest_sees": "Made over MCP", "mcp_sees": "Made over REST", "self": True,
        "lacking": "tool getConfluenceSpaces is not available: detour's jira replica does not back it"}
    assert out["slack"] == {"rest_sees": "Sent over MCP", "mcp_sees": ["Sent over MCP", "Posted with slack_sdk"],
                            "failed": '{"ok": false, "error": "channel_not_found"}'}
    assert out["stripe"] == {"rest_sees": "Ada Lovelace", "mcp_sees": True}
    made = sorted((r["__table__"], r.get("fields", {}).get("summary") or r.get("body") or r.get("message_text")
                   or r.get("name")) for r in result.diff.inserts)
    assert made == [("jira.jira_issue", "Made over MCP"), ("jira.jira_issue", "Made over REST"),
                    ("jira.jira_issue_comment", "Seen over MCP"), ("slack.messages", "Posted with slack_sdk"),
                    ("slack.messages", "Sent over MCP"), ("stripe.stripe_customers", "Ada Lovelace"),
                    ("stripe.stripe_products", "Made with stripe-python")]
    assert {r.path for r in result.requests if r.host == "mcp.stripe.com"} == {"/"}
