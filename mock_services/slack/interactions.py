"""What a person does in Slack's own client that reaches an app without changing any row: a
slash command (`slash_commands` envelopes) and a click on a message's button (`interactive`,
`block_actions`). Timelines' steps do them as their person (`do: slash_command` / `block_actions`);
they go to the apps that listen on Socket Mode, in Slack's payload shapes."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from mock_services import clock
from mock_services.events import outbox
from mock_services.slack.call import SlackCall
from mock_services.slack.errors import SlackError
from mock_services.slack.events import APPS_KEY, envelope, queue
from mock_services.slack.ids import app_id, new_id, ts_string
from mock_services.slack.serializers import message_json, workspace_domain, workspace_team_id

RESPONSE_URL = "https://hooks.slack.com/{kind}/{team}/{id}/{secret}"


class SlashCommandArgs(BaseModel):
    command: str
    text: str = ""
    channel: str


class BlockActionArgs(BaseModel):
    channel: str
    message_ts: str
    action_id: str


def _trigger_id() -> str:
    return f"{new_id('')}.{new_id('')}.{clock.token_hex(16)}"


def _send(call: SlackCall, kind: str, payload: dict[str, Any], to: list[str]) -> dict:
    for user_id in to:
        envelope_id, body = envelope(kind, {**payload, "api_app_id": app_id(user_id)})
        outbox.enqueue(call.state, queue(user_id), envelope_id, body)
    return {"ok": True, "delivered_to": [app_id(u) for u in to]}


def slash_command(call: SlackCall) -> dict:
    """`/command text` typed in a channel: every listening app gets it (the command's owner)."""
    args = call.args(SlashCommandArgs)
    channel, user, team = call.member_channel(args.channel), call.user, workspace_team_id(call.state)
    payload = {"token": "", "team_id": team, "team_domain": workspace_domain(call.state),
               "channel_id": channel["channel_id"], "channel_name": channel["channel_name"],
               "user_id": user["user_id"], "user_name": user.get("username", ""),
               "command": args.command if args.command.startswith("/") else f"/{args.command}", "text": args.text,
               "is_enterprise_install": "false", "trigger_id": _trigger_id(),
               "response_url": RESPONSE_URL.format(kind="commands", team=team, id=new_id(""), secret=clock.token_hex(12))}
    return _send(call, "slash_commands", payload, call.state.meta(APPS_KEY) or [])


def block_actions(call: SlackCall) -> dict:
    """A click on the button `action_id` of a message's blocks: the app that posted it gets it."""
    args = call.args(BlockActionArgs)
    channel, user = call.member_channel(args.channel), call.user
    message = call.message(channel, args.message_ts)
    elements = [(block.get("block_id", ""), e) for block in message.get("blocks") or []
                for e in block.get("elements") or [block.get("accessory") or {}]]
    found = next(((b, e) for b, e in elements if e.get("action_id") == args.action_id), None)
    if found is None:
        raise SlackError("action_not_found")
    block_id, element = found
    team = workspace_team_id(call.state)
    payload = {"type": "block_actions", "token": "", "trigger_id": _trigger_id(),
               "user": {"id": user["user_id"], "username": user.get("username", ""),
                        "name": user.get("username", ""), "team_id": team},
               "team": {"id": team, "domain": workspace_domain(call.state)},
               "container": {"type": "message", "message_ts": message["message_id"],
                             "channel_id": channel["channel_id"], "is_ephemeral": False},
               "channel": {"id": channel["channel_id"], "name": channel["channel_name"]},
               "message": message_json(call.state, message),
               "response_url": RESPONSE_URL.format(kind="actions", team=team, id=new_id(""), secret=clock.token_hex(12)),
               "actions": [{"action_id": args.action_id, "block_id": block_id, "type": element.get("type", "button"),
                            "value": element.get("value"), "text": element.get("text"),
                            "action_ts": ts_string(int(clock.now() * 1_000_000))}]}
    listening = call.state.meta(APPS_KEY) or []
    return _send(call, "interactive", payload, [u for u in listening if u == message["user_id"]])


INTERACTIONS = {"slash_command": slash_command, "block_actions": block_actions}
