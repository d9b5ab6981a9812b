"""Slack's own rules and shapes, as its reference documents them, through the proxy with slack_sdk
and a token the environment did not issue: the author rule on others' messages, error names and
their order, and the documented fields of threads, DMs, new conversations and search.all."""

from __future__ import annotations

import json

AGENT = r'''
import json
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

slack = WebClient(token="xoxb-not-issued")
GENERAL, RANDOM, JOHN, JOHN_MSG = "C01ABCD1234", "C02EFGH5678", "U02JOHNDOE1", "1699572000.000789"
me = slack.auth_test()["user_id"]
out = {}

def error(method, **kwargs):
    try:
        slack.api_call(method, json=kwargs)
    except SlackApiError as e:
        return e.response["error"]

out["update_others"] = error("chat.update", channel=RANDOM, ts=JOHN_MSG, text="mine now")
out["delete_others"] = error("chat.delete", channel=RANDOM, ts=JOHN_MSG)
out["post_without_channel"] = error("chat.postMessage", text="where to?")
out["unarchive_general"] = error("conversations.unarchive", channel=GENERAL)
out["kick_self"] = error("conversations.kick", channel=GENERAL, user=me)
out["search_without_query"] = error("search.messages")
created = slack.conversations_create(name="fresh-room")["channel"]
out["created"] = [created["unlinked"], created["last_read"], created["priority"], created["previous_names"]]
root = slack.chat_postMessage(channel=GENERAL, text="thread root")["ts"]
slack.chat_postMessage(channel=GENERAL, text="a reply", thread_ts=root)
thread = slack.conversations_replies(channel=GENERAL, ts=root)["messages"]
out["root"] = [thread[0]["subscribed"], thread[0]["last_read"] == thread[1]["ts"], thread[1]["parent_user_id"] == me]
dm = slack.conversations_open(users=JOHN)["channel"]["id"]
said = slack.chat_postMessage(channel=dm, text="hello John")["ts"]
out["dm_latest"] = slack.conversations_info(channel=dm)["channel"]["latest"]["ts"] == said
out["posts"] = slack.search_all(query="hello")["posts"]
print(json.dumps(out))
'''


def test_slack_rules_and_documented_fields_through_the_proxy(live_stack):
    result = live_stack.run(live_stack.env("slack_default"), AGENT, ".py")
    assert result.exit_code == 0, result.stderr[-2000:]
    assert json.loads(result.stdout) == {
        "update_others": "cant_update_message", "delete_others": "cant_delete_message",
        "post_without_channel": "channel_not_found", "unarchive_general": "not_archived",
        "kick_self": "cant_kick_self", "search_without_query": "no_query",
        "created": [0, "0000000000.000000", 0, []], "root": [True, True, True], "dm_latest": True,
        "posts": {"total": 0, "matches": []}}
    assert not [u for u in result.diff.updates if u["__table__"] == "messages"]  # John's message is as it was
