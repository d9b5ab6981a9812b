"""Google Chat over the pack generated from its discovery document (google-api-python-client's
chat.v1.json): spaces, their memberships and messages. Chat names a resource by its path
(`spaces/AAQA…/messages/…`), which a new row gets beside its id; a message has its sender (the
acting user: the pack's users are memberships, whose first is the acme agent's), its thread and
its space, as Chat answers them."""

from __future__ import annotations

from typing import Any

from mock_services import clock
from mock_services.rest.google import generated_error_body as error_body
from mock_services.rest.openapi import styles
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import Call

IDS = {"chat_spaces": {"kind": "prefix", "prefix": "AAQA", "length": 7},
       "chat_messages": {"kind": "prefix", "prefix": "", "length": 22},
       "chat_memberships": {"kind": "prefix", "prefix": "", "length": 21}}
MISSING = {table: "Requested entity was not found." for table in IDS}
DEFAULTS = {"chat_memberships": {"state": "JOINED", "role": "ROLE_MEMBER"}}


def _now() -> str:
    return clock.utcnow().isoformat(timespec="microseconds").replace("+00:00", "Z")


def _new(resources: Resources, call: Call, table: str) -> str:
    return call.params.get("messageId") or styles.new_id(resources.model["resources"][table]["id"],
                                                         {r["id"] for r in call.state.rows(table)})


def create_space(resources: Resources, call: Call) -> Any:
    made = _new(resources, call, "chat_spaces")
    return resources.create(call, {"id": made, "name": f"spaces/{made}", "createTime": _now(),
                                   "spaceType": resources.body(call).get("spaceType") or "SPACE"})


def _sender(call: Call) -> dict:
    """The acting user as Chat names a message's sender (the membership that acts is theirs)."""
    acting = call.state.first("chat_memberships", id=call.user)
    return {key: value for key, value in (acting or {}).get("member", {}).items() if key in ("name", "type")} or \
        {"name": f"users/{call.user}", "type": "HUMAN"}


def create_message(resources: Resources, call: Call) -> Any:
    space, made = call.params["spacesId"], _new(resources, call, "chat_messages")
    body = resources.body(call)
    thread = (body.get("thread") or {}).get("name") or f"spaces/{space}/threads/{made.split('.')[0]}"
    return resources.create(call, {
        "id": made, "name": f"spaces/{space}/messages/{made}", "createTime": _now(),
        "sender": _sender(call), "thread": {"name": thread}, "space": {"name": f"spaces/{space}"}})


def create_membership(resources: Resources, call: Call) -> Any:
    space, made = call.params["spacesId"], _new(resources, call, "chat_memberships")
    return resources.create(call, {"id": made, "name": f"spaces/{space}/members/{made}", "createTime": _now()})


HANDLERS = {"chat.spaces.create": create_space, "chat.spaces.messages.create": create_message,
            "chat.spaces.members.create": create_membership}

__all__ = ["DEFAULTS", "HANDLERS", "IDS", "MISSING", "error_body"]
