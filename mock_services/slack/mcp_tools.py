"""Which Web API method of the Slack replica backs each tool of Slack's hosted MCP server
(`https://mcp.slack.com/mcp`); the tools are in spec/mcp_tools.json. A tool not named here
(drafts, canvases, the searches of channels and people) answers that the replica lacks it."""

from __future__ import annotations

from mock_services.mcp.operations import Operation, Rest

CHANNEL = {"channel_id": "channel"}
MESSAGE = {**CHANNEL, "message": "text"}


def method(verb: str, name: str, **rename: str) -> Rest:
    """A Web API method, whose failures come as 200 with `"ok": false`."""
    return Rest(verb, f"/api/{name}", rename=rename, succeeded=lambda body: isinstance(body, dict) and body.get("ok"))


OPERATIONS: dict[str, Operation] = {
    "slack_send_message": method("POST", "chat.postMessage", **MESSAGE),
    "slack_schedule_message": method("POST", "chat.scheduleMessage", **MESSAGE),
    "slack_read_channel": method("GET", "conversations.history", **CHANNEL),
    "slack_read_thread": method("GET", "conversations.replies", **CHANNEL, message_ts="ts"),
    "slack_search_public": method("GET", "search.messages", limit="count"),
    "slack_read_user_profile": method("GET", "users.info", user_id="user"),
}
