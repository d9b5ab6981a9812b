"""Slack as Slack answers it, through the proxy with slack_sdk, unmodified, on an environment
that requires the tokens it issues: the sandbox's own token names its bot, others' messages are
refused as Slack refuses them, and the fields and arguments Slack's reference gives (roles and
profile images, a thread's root, a created channel, search paging and highlights, remote files,
multipart photos, empty strings as values)."""

import json

import pytest

from tests.conftest import ISOLATING

SCRIPT = """
import json, os
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

def error(call, *args, **kwargs):
    try:
        call(*args, **kwargs)
    except SlackApiError as e:
        return e.response["error"]
    return None

slack = WebClient(token=os.environ["SLACK_BOT_TOKEN"])
out = {}
me = slack.auth_test()
out["me"] = [me["user_id"], me["bot_id"], slack.bots_info(bot=me["bot_id"])["bot"]["user_id"]]
out["made_up_token"] = error(WebClient(token="xoxb-made-up").auth_test)
out["others_message"] = [error(slack.chat_update, channel="C03IJKL9012", ts="1699737600.000654", text="x"),
                         error(slack.chat_delete, channel="C03IJKL9012", ts="1699737600.000654")]
posted = slack.chat_postMessage(channel="C01ABCD1234", text="hello", metadata={"event_type": "deploy",
                                "event_payload": {"id": 7}})["message"]
out["posted"] = [posted["bot_id"], posted["team"], posted["metadata"]["event_type"]]
out["own_edit"] = slack.chat_update(channel="C01ABCD1234", ts=posted["ts"], text="hello again")["text"]
out["emoji"] = error(slack.reactions_add, channel="C01ABCD1234", timestamp=posted["ts"], name="not-an-emoji")
self_dm = slack.conversations_open(users=me["user_id"], return_im=True)["channel"]
out["self_dm"] = [self_dm["is_im"], self_dm["user"]]
out["empty_name"] = error(slack.conversations_create, name="")
slack.conversations_setTopic(channel="C01ABCD1234", topic="")
out["topic"] = slack.conversations_info(channel="C01ABCD1234")["channel"]["topic"]["value"]
remote = slack.files_remote_add(external_id="doc-9", external_url="https://docs.example/9", title="Spec",
                                indexable_file_contents=b"the spec text")["file"]
slack.files_remote_share(external_id="doc-9", channels="C01ABCD1234")
out["remote"] = [remote["mode"], slack.files_remote_info(file=remote["id"])["file"]["channels"],
                 [f["id"] for f in slack.files_remote_list()["files"]] == [remote["id"]]]
slack.files_remote_remove(external_id="doc-9")
slack.users_setPhoto(image=b"\\x89PNG\\r\\n\\x1a\\n" + bytes(32))
out["photo"] = slack.users_profile_get()["profile"]["is_custom_image"]
out["bad_photo"] = error(slack.users_setPhoto, image=b"plain text")
robert = slack.users_info(user="U03ROBERT23")["user"]
out["robert"] = [robert["is_admin"], robert["is_owner"], robert["is_email_confirmed"],
                 sorted(k for k in robert["profile"] if k.startswith("image_"))]
reply = slack.chat_postMessage(channel="C01ABCD1234", text="in the thread", thread_ts=posted["ts"])
root = slack.conversations_replies(channel="C01ABCD1234", ts=posted["ts"])["messages"][0]
out["root"] = [root["thread_ts"] == posted["ts"], root["reply_count"]]
made = slack.conversations_create(name="fidelity-made")["channel"]
out["created"] = sorted(k for k in ("created", "creator", "is_channel", "is_member", "topic", "purpose",
                                    "is_archived", "name_normalized") if k in made)
slack.chat_postMessage(channel="C01ABCD1234", text="hello there")
found = slack.search_messages(query="hello", count=1, cursor="*", highlight=True)
out["search"] = ["\ue000" in found["messages"]["matches"][0]["text"], bool(found["response_metadata"]["next_cursor"]),
                 found["messages"]["pagination"]["per_page"]]
print(json.dumps(out))
"""

EXPECTED = {
    "me": ["U01AGENBOT9", "B01AGENBOT9", "U01AGENBOT9"], "made_up_token": "invalid_auth",
    "others_message": ["cant_update_message", "cant_delete_message"], "posted": ["B01AGENBOT9", "T01WORKSPACE", "deploy"],
    "own_edit": "hello again", "emoji": "invalid_name", "self_dm": [True, "U01AGENBOT9"],
    "empty_name": "invalid_name_required", "topic": "", "remote": ["external", ["C01ABCD1234"], True],
    "photo": True, "bad_photo": "bad_image",
    "robert": [True, False, True, ["image_192", "image_24", "image_32", "image_48", "image_512", "image_72"]],
    "root": [True, 1], "created": ["created", "creator", "is_archived", "is_channel", "is_member", "name_normalized",
                                   "purpose", "topic"],
    "search": [True, True, 1],
}


@pytest.mark.parametrize("backend", ISOLATING)
def test_slack_sdk_meets_slacks_rules_with_the_token_the_environment_issued(live_stack, backend):
    env = live_stack.store.create("slack_bench_v2", require_issued_tokens=True).env_id
    result = live_stack.run(env, SCRIPT, ".py", backend=backend)
    assert result.exit_code == 0, result.stderr[-2000:]
    assert json.loads(result.stdout) == EXPECTED
    assert {r.host for r in result.requests} == {"slack.com"}
    token = live_stack.store.credentials(env).tokens["U01AGENBOT9"]
    assert all(token not in json.dumps(r.model_dump(mode="json")) for r in result.requests), \
        "an issued token is redacted from the records like any other"
