"""The hosted MCP servers of Notion, Box, Google (Gmail, Calendar, Drive) and HubSpot at their
real hosts, on the `acme` world, from inside a namespace sandbox: one agent program with the
official `mcp` SDK's Streamable HTTP client (the sandbox runtime's, its 2.x line) writes through
each server and reads the write back with the vendor's REST API, writes over REST and reads it
back through MCP; checks the transport's sessions (400 without one, 404 after its DELETE),
Notion's legacy SSE endpoint with the SDK's SSE client and its OAuth (discovery, registration,
the browserless code flow), and Google's structured content. The environment's diff holds the
MCP writes. (The same client on docker, and the Agents SDK's, drive every server from the
shared case table: test_mcp_python.py, test_mcp_agents_sdk.py.)"""

from __future__ import annotations

import json

from tests.conftest import needs_namespaces

AGENT = r'''
import asyncio, base64, hashlib, json, os, secrets
from contextlib import asynccontextmanager
from urllib.parse import parse_qs, urlparse
import httpx
from mcp import ClientSession
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

TOKENS = {"notion": os.environ["NOTION_TOKEN"], "box": os.environ["BOX_DEVELOPER_TOKEN"],
          "google": os.environ["GOOGLE_OAUTH_ACCESS_TOKEN"], "hubspot": os.environ["HUBSPOT_ACCESS_TOKEN"]}
SERVERS = {"notion": "https://mcp.notion.com/mcp", "box": "https://mcp.box.com",
           "gmail": "https://gmailmcp.googleapis.com/mcp/v1", "calendar": "https://calendarmcp.googleapis.com/mcp/v1",
           "drive": "https://drivemcp.googleapis.com/mcp/v1", "hubspot": "https://mcp.hubspot.com"}
out = {}


def token(server):
    return TOKENS.get(server, TOKENS["google"])


def rest(base, server, **headers):
    return httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token(server)}", **headers})


def field(result, name):
    """The SDK's 1.x spells a result's fields in camel case, 2.x in snake case."""
    snake = "".join("_" + c.lower() if c.isupper() else c for c in name)
    return getattr(result, snake) if hasattr(result, snake) else getattr(result, name)


@asynccontextmanager
async def connected(server):
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {token(server)}"}) as http, \
            streamable_http_client(SERVERS[server], http_client=http) as streams, ClientSession(*streams[:2]) as mcp:
        await mcp.initialize()
        yield lambda tool, **args: call(mcp, tool, args)


async def call(mcp, tool, args):
    result = await mcp.call_tool(tool, args)
    assert not field(result, "isError"), result.content[0].text
    return json.loads(result.content[0].text)


async def notion():
    api = rest("https://api.notion.com/v1", "notion", **{"Notion-Version": "2025-09-03"})
    async with connected("notion") as call:
        task = (await call("notion-search", query="ENG-5"))["results"][0]
        made = (await call("notion-create-pages", parent={"data_source_id": task["parent"]["data_source_id"]},
                           pages=[{"properties": {"title": "Made over MCP", "Status": "In progress"}}]))["pages"][0]
        api.post("/pages", json={"parent": {"page_id": task["id"]},
                                 "properties": {"title": {"title": [{"text": {"content": "Made over REST"}}]}}})
        found = await call("notion-search", query="Made over")
    page = api.get(f"/pages/{made['id']}").json()["properties"]
    out["notion"] = [page["Status"]["status"]["name"], sorted(p["properties"]["title" if "title" in p["properties"]
                     else "Name"]["title"][0]["plain_text"] for p in found["results"])]
    async with sse_client("https://mcp.notion.com/sse", headers={"Authorization": f"Bearer {token('notion')}"}) \
            as streams, ClientSession(*streams[:2]) as legacy:
        await legacy.initialize()
        out["notion_sse"] = json.loads((await legacy.call_tool("notion-get-user", {"user_id": "self"})).content[0].text)["object"]


async def notion_oauth():
    """Notion's OAuth at its MCP host, by hand: the 401 names the metadata, a client registers,
    `/authorize` answers at once with a code, `/token` gives the acting person's token."""
    verifier = secrets.token_urlsafe(32)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    async with httpx.AsyncClient(base_url="https://mcp.notion.com") as http:
        refused = await http.post("/mcp", json={})
        server = (await http.get("/.well-known/oauth-authorization-server")).json()
        client = (await http.post("/register", json={"redirect_uris": ["http://localhost:3030/cb"]})).json()
        back = await http.get("/authorize", params={"client_id": client["client_id"], "response_type": "code",
                                                   "redirect_uri": "http://localhost:3030/cb", "code_challenge": challenge,
                                                   "code_challenge_method": "S256"})
        code = parse_qs(urlparse(back.headers["location"]).query)["code"][0]
        issued = (await http.post("/token", data={"grant_type": "authorization_code", "code": code,
                                                  "code_verifier": verifier})).json()
    out["notion_oauth"] = ["resource_metadata=" in refused.headers["www-authenticate"], server["issuer"],
                           issued["access_token"] == token("notion")]


async def box():
    api = rest("https://api.box.com/2.0", "box")
    async with connected("box") as call:
        made = await call("create_folder", name="Made over MCP", parent_folder_id="0")
        api.post("/folders", json={"name": "Made over REST", "parent": {"id": "0"}})
        found = await call("search_folders_by_name", folder_name="Made over REST")
    out["box"] = [api.get(f"/folders/{made['id']}").json()["name"], [e["name"] for e in found["entries"]]]


async def google():
    gmail = rest("https://gmail.googleapis.com/gmail/v1/users/me", "gmail")
    calendar = rest("https://www.googleapis.com/calendar/v3/calendars/primary", "calendar")
    async with connected("gmail") as call:
        draft = await call("create_draft", to=["robert@acme.example"], subject="Made over MCP", body="Hello")
        gmail.post("/labels", json={"name": "Made over REST"})
        labels = [label["name"] for label in (await call("list_labels"))["labels"]]
    out["gmail"] = [gmail.get(f"/drafts/{draft['id']}").status_code, "Made over REST" in labels]
    async with connected("calendar") as call:
        made = await call("create_event", summary="Made over MCP", startTime="2026-12-01T10:00:00Z",
                          endTime="2026-12-01T11:00:00Z")
        calendar.post("/events", json={"summary": "Made over REST", "start": {"dateTime": "2026-12-02T10:00:00Z"},
                                       "end": {"dateTime": "2026-12-02T11:00:00Z"}})
        events = await call("list_events", query="Made over", startTime="2026-11-30T00:00:00Z")
    out["calendar"] = [calendar.get(f"/events/{made['id']}").json()["summary"], sorted(e["summary"] for e in events["events"])]
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {token('drive')}"}) as http, \
            streamable_http_client(SERVERS["drive"], http_client=http) as streams, ClientSession(*streams[:2]) as mcp:
        await mcp.initialize()
        made = await mcp.call_tool("create_file", {"title": "Made over MCP", "mimeType": "application/vnd.google-apps.folder"})
        out["drive"] = [field(made, "structuredContent")["name"],
                        rest("https://www.googleapis.com/drive/v3", "drive").get(f"/files/{field(made, 'structuredContent')['id']}").json()["name"]]


async def hubspot():
    api = rest("https://api.hubapi.com/crm/v3/objects", "hubspot")
    async with connected("hubspot") as call:
        made = await call("manage_crm_objects", action="create", objectType="deals", properties={"dealname": "Made over MCP"})
        api.post("/contacts", json={"properties": {"email": "rest@acme.example", "firstname": "Made over REST"}})
        found = await call("search_crm_objects", objectType="contacts", query="rest@acme.example")
    out["hubspot"] = [api.get(f"/0-3/{made['id']}").json()["properties"]["dealname"],
                      [c["properties"]["firstname"] for c in found["results"]]]


async def sessions():
    """The transport's sessions, by hand: a request without one is 400; after its DELETE, 404."""
    url, init = SERVERS["hubspot"], {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bare", "version": "0"}}}
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    headers = {"Authorization": f"Bearer {token('hubspot')}", "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-06-18"}
    async with httpx.AsyncClient(headers=headers) as http:
        session = (await http.post(url, json=init)).headers["mcp-session-id"]
        statuses = [(await http.post(url, json=listing)).status_code,
                    (await http.post(url, json=listing, headers={"Mcp-Session-Id": session})).status_code,
                    (await http.delete(url, headers={"Mcp-Session-Id": session})).status_code,
                    (await http.post(url, json=listing, headers={"Mcp-Session-Id": session})).status_code]
    out["sessions"] = statuses


async def main():
    for step in (notion, notion_oauth, box, google, hubspot, sessions):
        await step()
    print(json.dumps(out))

asyncio.run(main())
'''


@needs_namespaces
def test_the_workspace_vendors_hosted_mcp_servers(live_stack):
    result = live_stack.run(live_stack.env("acme"), AGENT, ".py", backend="namespace")
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["notion"] == ["In progress", ["Made over MCP", "Made over REST"]]
    assert out["notion_sse"] == "user"
    assert out["notion_oauth"] == [True, "https://mcp.notion.com", True]
    assert out["box"] == ["Made over MCP", ["Made over REST"]]
    assert out["gmail"] == [200, True]
    assert out["calendar"] == ["Made over MCP", ["Made over MCP", "Made over REST"]]
    assert out["drive"] == ["Made over MCP", "Made over MCP"]  # Google's structured content, and REST's answer
    assert out["hubspot"] == ["Made over MCP", ["Made over REST"]]
    assert out["sessions"] == [400, 200, 200, 404]
    made = {(r["__table__"], r.get("name") or r.get("summary") or r.get("properties", {}).get("dealname"))
            for r in result.diff.inserts}
    assert {("box.box_folders", "Made over MCP"), ("calendar.calendar_events", "Made over MCP"),
            ("drive.drive_files", "Made over MCP"), ("hubspot.hubspot_crm_objects_0_3", "Made over MCP")} <= made
    hosts = {r.host for r in result.requests if r.mcp_call}
    assert hosts == {"mcp.notion.com", "mcp.box.com", "gmailmcp.googleapis.com", "calendarmcp.googleapis.com",
                     "drivemcp.googleapis.com", "mcp.hubspot.com"}
