"""A hosted MCP session's kept transport (mock_services/mcp/kept.py): a session's POSTs reuse the
transport and server run its process keeps; one pushed out by newer sessions answers again on its
next POST; one ended by DELETE is 404. The replica app in process, over ASGI, in one event loop
(as the proxy runs it)."""

import asyncio

import httpx
import pytest

from mock_services.app import Packs, create_replica_app
from mock_services.mcp import kept
from mock_services.store import EnvironmentStore

VERSION = "2025-06-18"
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": VERSION, "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}
CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "issue_read", "arguments": {
    "method": "get", "owner": "acme", "repo": "api", "issue_number": 1}}}


async def _sessions(app, prefix: str, token: str) -> None:
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream",
               "host": "api.githubcopilot.com"}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://replica",
                                 headers=headers) as client:
        async def opened() -> dict[str, str]:
            answer = await client.post(prefix, json=INITIALIZE)
            return {"Mcp-Session-Id": answer.headers["mcp-session-id"], "MCP-Protocol-Version": VERSION}

        async def text(session: dict[str, str]) -> str:
            answer = await client.post(prefix, json=CALL, headers=session)
            assert answer.status_code == 200, answer.text
            return answer.json()["result"]["content"][0]["text"]

        first, second = await opened(), await opened()
        answered = await text(first)
        (packs,) = [r for r in app.router.routes if isinstance(r, Packs)]
        github = packs.by_name["github"].routes
        endpoint = next(r.app for r in github.routes if getattr(r, "path", "").endswith("/github/mcp{rest:path}"))
        (loop_kept,) = endpoint.kept.loops.values()
        transport = loop_kept[first["Mcp-Session-Id"]]
        assert await text(first) == answered and loop_kept[first["Mcp-Session-Id"]] is transport  # reused
        assert await text(second) == answered  # the second session pushes the first out (LIMIT 1)
        assert transport.is_terminated and list(loop_kept) == [second["Mcp-Session-Id"]]
        assert await text(first) == answered  # made again, the session still valid
        assert (await client.delete(prefix, headers=first)).status_code == 200
        assert first["Mcp-Session-Id"] not in loop_kept
        assert (await client.post(prefix, json=CALL, headers=first)).status_code == 404


def test_a_session_s_posts_reuse_its_kept_transport_until_pushed_out_or_ended(state, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(kept, "LIMIT", 1)
    store = EnvironmentStore(state)
    env_id = store.create("github_default").env_id
    token = store.credentials(env_id).variables["GITHUB_TOKEN"]
    asyncio.run(_sessions(create_replica_app(state), f"/api/env/{env_id}/services/github/mcp/", token))
