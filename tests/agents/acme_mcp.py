"""A scripted agent for the acme suite over MCP (examples/suites/acme_mcp.json): each task done
with the vendors' hosted MCP servers (GitHub's, Linear's, Google's, HubSpot's, Notion's, Box's)
through the official `mcp` SDK's client, with the tokens the run gives (GITHUB_TOKEN,
LINEAR_API_KEY, GOOGLE_OAUTH_ACCESS_TOKEN, ...) and nothing else, unaware of detour."""

import asyncio
import json
import os
from contextlib import asynccontextmanager

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

PROMPT = os.environ.get("DETOUR_PROMPT", "")


@asynccontextmanager
async def server(url, token):
    """A connected session; `call` answers a tool's JSON (the SDK's 1.x and 2.x lines alike)."""
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http, \
            streamable_http_client(url, http_client=http) as streams, ClientSession(*streams[:2]) as session:
        await session.initialize()

        async def call(tool, **arguments):
            result = await session.call_tool(tool, arguments)
            text = result.content[0].text
            if getattr(result, "is_error", getattr(result, "isError", False)):
                raise SystemExit(f"{tool} failed: {text}")
            return json.loads(text)
        yield call


async def workspace() -> bool:
    """The tasks over Google's, HubSpot's, Notion's and Box's servers; False if none is this one."""
    google = os.environ["GOOGLE_OAUTH_ACCESS_TOKEN"]
    if "Checkout fix review" in PROMPT:
        async with server("https://calendarmcp.googleapis.com/mcp/v1", google) as calendar, \
                server("https://gmailmcp.googleapis.com/mcp/v1", google) as gmail:
            await calendar("create_event", summary="Checkout fix review", startTime="2026-12-03T15:00:00Z",
                           endTime="2026-12-03T15:30:00Z", attendeeEmails=["robert@example.com"])
            await gmail("create_draft", to=["robert@example.com"], subject="Checkout fix review",
                        body="Robert, I put the checkout fix review on 3 December, 15:00 UTC.")
        return True
    if "Globex checkout v2" in PROMPT:
        name = "Globex checkout v2"
        async with server("https://mcp.hubspot.com", os.environ["HUBSPOT_ACCESS_TOKEN"]) as hubspot, \
                server("https://mcp.notion.com/mcp", os.environ["NOTION_TOKEN"]) as notion, \
                server("https://mcp.box.com", os.environ["BOX_DEVELOPER_TOKEN"]) as box:
            await hubspot("manage_crm_objects", action="create", objectType="deals", properties={"dealname": name})
            tasks = (await notion("notion-search", query="ENG-5"))["results"][0]["parent"]
            await notion("notion-create-pages", parent={"data_source_id": tasks["data_source_id"]},
                         pages=[{"properties": {"title": name}}])
            await box("create_folder", name=name, parent_folder_id="0")
        return True
    return False


async def main():
    if await workspace():
        return
    async with server("https://api.githubcopilot.com/mcp/", os.environ["GITHUB_TOKEN"]) as github, \
            server("https://mcp.linear.app/mcp", os.environ["LINEAR_API_KEY"]) as linear:
        if "ENG-5" in PROMPT:
            bug = await linear("get_issue", id="ENG-5")
            made = await github("issue_write", method="create", owner="acme", repo="api", title=bug["title"],
                                body=f"From Linear {bug['identifier']}: {bug['url']}")
            await linear("create_comment", issueId="ENG-5", body=f"Filed on GitHub as acme/api#{made['number']}.")
        elif "ENG-2" in PROMPT:
            await linear("update_issue", id="ENG-2", assignee="Yuki Tanaka", state="In Progress")
        elif "issue #2" in PROMPT:
            await github("add_issue_comment", owner="acme", repo="api", issue_number=2,
                         body="The orders route was fixed in today's deploy.")
            await github("issue_write", method="update", owner="acme", repo="api", issue_number=2, state="closed",
                         state_reason="completed")
        else:
            raise SystemExit(f"no script for: {PROMPT}")

asyncio.run(main())
