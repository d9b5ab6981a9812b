"""GitHub's Node clients, unmodified, in sandboxes on the namespace backend: `@octokit/rest`
(the REST client most Node agents use: issues, comments, pagination by the Link header,
contents, GitHub's errors; and its `graphql`, which reads a pull request and rebases it in), and npm's `@modelcontextprotocol/server-github`
under `detour run --stdio`, driven by the MCP Python SDK's client: a branch, files pushed
through the git database API, a pull request from them, merged."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.conftest import ISOLATING, NODE_CLIENTS, needs_namespaces
from tests.e2e.official_clients import run_node_client
from tests.e2e import test_mcp

pytestmark = needs_namespaces
DETOUR, detour = test_mcp.DETOUR, test_mcp.detour
home = test_mcp.home  # a home and stack ports of the module's own, stopped after
SERVER = NODE_CLIENTS / "@modelcontextprotocol" / "server-github" / "dist" / "index.js"
LAUNCH = 'GITHUB_PERSONAL_ACCESS_TOKEN="$GITHUB_TOKEN" exec node "$0"'

OCTOKIT = r'''
import { Octokit } from "@octokit/rest";
const octokit = new Octokit({ auth: process.env.GITHUB_TOKEN });
const out = {};
out.me = (await octokit.rest.users.getAuthenticated()).data.login;
const issue = (await octokit.rest.issues.create({ owner: "acme", repo: "api", title: "From Octokit",
                                                  labels: ["enhancement"] })).data;
await octokit.rest.issues.createComment({ owner: "acme", repo: "api", issue_number: issue.number, body: "noted" });
out.all = (await octokit.paginate(octokit.rest.issues.listForRepo,
                                  { owner: "acme", repo: "api", state: "all", per_page: 2 })).map(i => i.number);
const file = (await octokit.rest.repos.getContent({ owner: "acme", repo: "api", path: "app/routes.py" })).data;
out.file = Buffer.from(file.content, "base64").toString().split("\n")[0];
try { await octokit.rest.repos.get({ owner: "acme", repo: "nope" }); } catch (e) { out.missing = e.status; }
try { await octokit.rest.actions.listWorkflowRunsForRepo({ owner: "acme", repo: "api" }); }
catch (e) { out.unmodeled = [e.status, e.response.data.message.includes("does not model")]; }
const { repository } = await octokit.graphql(`query($owner: String!, $name: String!) {
  repository(owner: $owner, name: $name) { pullRequest(number: 4) { id mergeable } } }`, { owner: "acme", name: "api" });
const merged = await octokit.graphql(`mutation($id: ID!) {
  mergePullRequest(input: { pullRequestId: $id, mergeMethod: REBASE }) { pullRequest { state } } }`,
  { id: repository.pullRequest.id });
out.graphql = [repository.pullRequest.mergeable, merged.mergePullRequest.pullRequest.state];
console.log(JSON.stringify(out));
'''


@pytest.mark.parametrize("backend", ISOLATING)
def test_octokit_rest_through_the_proxy(live_stack, backend, request):
    result = run_node_client(live_stack, request, backend, "@octokit/rest", OCTOKIT, "github_default")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == {"me": "ai-agent", "all": [5, 4, 3, 2, 1], "file": "def routes() -> list[str]:",
                                         "missing": 404, "unmodeled": [501, True],
                                         "graphql": ["MERGEABLE", "MERGED"]}
    inserted = sorted(r["__table__"] for r in result.diff.inserts)
    assert inserted == ["github_commits", "github_commits", "github_issue_comments", "github_issues"]  # rebased


async def drive(server) -> dict:
    """What an MCP host does for an agent: a branch, a file pushed to it, a pull request, merged."""
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    async def tool(session, name: str, **arguments) -> dict:
        answer = await session.call_tool(name, arguments)
        assert not answer.isError, answer.content[0].text
        return json.loads(answer.content[0].text)

    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {t.name for t in (await session.list_tools()).tools}
        await tool(session, "create_branch", owner="acme", repo="api", branch="mcp/docs", from_branch="main")
        await tool(session, "push_files", owner="acme", repo="api", branch="mcp/docs", message="Docs over MCP",
                   files=[{"path": "docs/mcp.md", "content": "# Made over MCP\n"}])
        pull = await tool(session, "create_pull_request", owner="acme", repo="api", title="Docs over MCP",
                          head="mcp/docs", base="main")
        merged = await tool(session, "merge_pull_request", owner="acme", repo="api", pull_number=pull["number"],
                            merge_method="squash")
        issues = await tool(session, "search_issues", q="repo:acme/api is:pr is:merged")
        return {"tools": tools, "pull": pull["number"], "merged": merged["merged"],
                "found": [i["number"] for i in issues["items"]]}


@pytest.mark.parametrize("backend", ISOLATING)
def test_the_github_mcp_server_runs_unmodified_in_a_sandbox(home, backend, request):
    from mcp import StdioServerParameters
    if not SERVER.exists():
        pytest.fail(f"run `make test` (it installs {NODE_CLIENTS.parent}/package.json)")
    env = f"mcpgh-{backend}"  # the module's home is shared by both backends' runs
    detour(home, "env", "create", "--template", "github_default", "--id", env)
    in_image = Path("/home/node_modules") / SERVER.relative_to(NODE_CLIENTS)  # where a derived image has it
    runtime = ["--image", request.getfixturevalue("node_clients_image"), "--", "sh", "-c", LAUNCH, str(in_image)] \
        if backend == "docker" else ["--node-modules", str(NODE_CLIENTS), "--", "sh", "-c", LAUNCH, str(SERVER)]
    server = StdioServerParameters(command=DETOUR, env=home, args=[
        "run", "--stdio", "--env", env, "--backend", backend, *runtime])
    out = asyncio.run(drive(server))
    assert {"create_branch", "push_files", "create_pull_request", "merge_pull_request"} <= out["tools"]
    assert (out["pull"], out["merged"], out["found"]) == (5, True, [5])
    diff = json.loads(detour(home, "env", "diff", env))
    commits = [r["message"] for r in diff["inserts"] if r["__table__"] == "github_commits"]
    assert commits == ["Docs over MCP\n", "Docs over MCP (#5)\n\n* Docs over MCP\n"]
    moved = [u["after"]["ref"] for u in diff["updates"] if u["__table__"] == "github_refs"]
    assert moved == ["refs/heads/main"]
