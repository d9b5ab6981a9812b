"""The Slack Web API as Slack's own clients know it, through the proxy: slack_sdk's whole method
list answered in Slack's shape, and the official clients (slack_sdk sync and async, npm
@slack/web-api) working the state-backed families, files_upload_v2 included."""

import json

import pytest

from sandbox.base import Limits
from tests.conftest import ISOLATING, needs_namespaces

# Runs inside the sandbox: slack_sdk's own method list, each called once with its required
# arguments, through whatever the sandbox's only way out is.
EVERY_METHOD = """
import ast, inspect, json
import slack_sdk.web.client
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

def api_method(function):
    # the name in the method's self.api_call("name", ...), wherever it sits in the call
    for node in ast.walk(function):
        if (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "api_call" and node.args
                and isinstance(node.args[0], ast.Constant)):
            return node.args[0].value

answers = {}
client = next(n for n in ast.parse(inspect.getsource(slack_sdk.web.client)).body
              if isinstance(n, ast.ClassDef) and n.name == "WebClient")
for function in client.body:
    name = api_method(function) if isinstance(function, ast.FunctionDef) else None
    if not name or name.startswith(("admin.", "channels.", "groups.", "im.", "mpim.")):
        continue
    required = {a.arg: "x" for a, d in zip(function.args.kwonlyargs, function.args.kw_defaults) if d is None}
    required.pop("token", None)
    try:  # a token per method, so that auth.revoke revokes only its own
        response = WebClient(token=f"xoxb-{name}").api_call(name, params=required)
    except SlackApiError as e:
        response = e.response
    answers[name] = [response.status_code, response.data]
print(json.dumps(answers))
"""


@pytest.mark.parametrize("backend", ["process", pytest.param("namespace", marks=needs_namespaces)])
def test_every_slack_sdk_method_is_answered_in_slacks_shape_through_the_proxy(live_stack, make_env, backend):
    # ~180 calls in one program: the default minute is too short on a loaded machine.
    result = live_stack.run(make_env(), EVERY_METHOD, ".py", backend=backend, limits=Limits(timeout_s=300))
    assert result.exit_code == 0, result.stderr[-2000:]
    answers = json.loads(result.stdout)
    assert len(answers) > 150 and {"files.remote.add", "files.remote.update"} <= set(answers)
    for name, (status, body) in answers.items():
        assert status == 200 and isinstance(body.get("ok"), bool), (name, status, body)
        assert body.get("error") not in ("unknown_method", "fatal_error"), (name, body)
    errors = {body.get("error") for _, body in answers.values()}
    assert "not_supported_by_replica" in errors and "method_deprecated" in errors
    assert sum(1 for _, body in answers.values() if body["ok"]) > 20
    assert {r.service for r in result.requests} == {"slack"} and len(result.requests) == len(answers)


SDK_FAMILIES = """
import json, time
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

slack = WebClient(token="xoxb-families")
out = {}
general = "C01ABCD1234"
john = slack.users_lookupByEmail(email="john@example.com")["user"]["id"]
out["permalink"] = slack.chat_getPermalink(channel=general, message_ts="1699564800.000123")["permalink"]
slack.chat_postEphemeral(channel=general, user=john, text="psst")
scheduled = slack.chat_scheduleMessage(channel=general, text="tomorrow", post_at=int(time.time()) + 86400)
out["scheduled"] = [m["text"] for m in slack.chat_scheduledMessages_list()["scheduled_messages"]]
slack.chat_meMessage(channel=general, text="is testing")
slack.conversations_setPurpose(channel=general, purpose="all hands")
slack.conversations_mark(channel=general, ts="1699564800.000123")
slack.pins_add(channel=general, timestamp="1699564800.000123")
out["pins"] = len(slack.pins_list(channel=general)["items"])
slack.bookmarks_add(channel_id=general, title="Wiki", type="link", link="https://wiki.example.com")
out["bookmarks"] = [b["title"] for b in slack.bookmarks_list(channel_id=general)["bookmarks"]]
slack.reactions_add(channel=general, timestamp="1699568400.000456", name="eyes")
out["reacted"] = [i["message"]["ts"] for i in slack.reactions_list()["items"]]
slack.stars_add(channel=general, timestamp="1699568400.000456")
out["stars"] = len(slack.stars_list()["items"])
reminder = slack.reminders_add(text="review", time="in 10 minutes")["reminder"]
out["reminders"] = [r["text"] for r in slack.reminders_list()["reminders"]]
slack.dnd_setSnooze(num_minutes=15)
out["snoozing"] = slack.dnd_info()["snooze_enabled"]
group = slack.usergroups_create(name="Reviewers", handle="reviewers")["usergroup"]
slack.usergroups_users_update(usergroup=group["id"], users=[john])
out["group"] = slack.usergroups_users_list(usergroup=group["id"])["users"]
slack.users_profile_set(profile={"status_text": "testing", "status_emoji": ":test_tube:"})
out["status"] = slack.users_profile_get()["profile"]["status_text"]
slack.users_setPresence(presence="away")
out["presence"] = slack.users_getPresence(user=slack.auth_test()["user_id"])["presence"]
out["team"] = slack.team_info()["team"]["name"]
upload = slack.files_upload_v2(channel=general, content="a,b\\n1,2\\n", filename="data.csv", title="Data",
                               initial_comment="the numbers")
file_id = upload["file"]["id"]
out["file"] = slack.files_info(file=file_id)["file"]["title"]
out["files_in_general"] = [f["id"] for f in slack.files_list(channel=general)["files"]] == [file_id]
out["found_file"] = slack.search_files(query="data")["files"]["total"]
out["shared_message"] = slack.conversations_history(channel=general, limit=1)["messages"][0]["files"][0]["id"] == file_id
try:
    slack.pins_add(channel=general, timestamp="1699564800.000123")
except SlackApiError as e:
    out["error"] = e.response["error"]
print(json.dumps(out, sort_keys=True))
"""

EXPECTED_SDK = {"permalink": "https://test-workspace.slack.com/archives/C01ABCD1234/p1699564800000123",
                "scheduled": ["tomorrow"], "pins": 1, "bookmarks": ["Wiki"], "reacted": ["1699568400.000456"],
                "stars": 1, "reminders": ["review"], "snoozing": True, "group": ["U02JOHNDOE1"], "status": "testing",
                "presence": "away", "team": "Test Workspace", "file": "Data", "files_in_general": True,
                "found_file": 1, "shared_message": True, "error": "already_pinned"}

FAMILY_TABLES = {"scheduled_messages", "messages", "pins", "bookmarks", "message_reactions", "stars", "reminders",
                 "user_groups", "user_group_members", "files", "file_contents"}


@pytest.mark.parametrize("backend", ISOLATING)
def test_slack_sdk_works_the_state_backed_families(live_stack, make_env, backend):
    result = live_stack.run(make_env(), SDK_FAMILIES, ".py", backend=backend)
    assert result.exit_code == 0, result.stderr[-2000:]
    assert json.loads(result.stdout) == EXPECTED_SDK
    assert {i["__table__"] for i in result.diff.inserts} == FAMILY_TABLES
    hosts = {r.host for r in result.requests}
    assert hosts == {"slack.com", "files.slack.com"}, hosts


ASYNC_FAMILIES = """
import asyncio, json
from slack_sdk.web.async_client import AsyncWebClient

async def main():
    slack = AsyncWebClient(token="xoxb-async")
    upload = await slack.files_upload_v2(channel="C01ABCD1234", content=b"async bytes", filename="a.txt")
    info = await slack.files_info(file=upload["file"]["id"])
    await slack.pins_add(channel="C01ABCD1234", timestamp="1699564800.000123")
    pins = await slack.pins_list(channel="C01ABCD1234")
    group = await slack.usergroups_create(name="Async crew")
    print(json.dumps([info["content"], len(pins["items"]), group["usergroup"]["handle"]]))

asyncio.run(main())
"""


@pytest.mark.parametrize("backend", ISOLATING)
def test_async_slack_sdk_works_the_state_backed_families(live_stack, make_env, backend):
    result = live_stack.run(make_env(), ASYNC_FAMILIES, ".py", backend=backend)
    assert result.exit_code == 0, result.stderr[-2000:]
    assert json.loads(result.stdout) == ["async bytes", 1, "async-crew"]


WEB_API_FAMILIES = """
import { WebClient } from "@slack/web-api";

const slack = new WebClient("xoxb-npm");
const general = "C01ABCD1234";
const out = {};
const john = (await slack.users.lookupByEmail({ email: "john@example.com" })).user.id;
await slack.pins.add({ channel: general, timestamp: "1699564800.000123" });
out.pins = (await slack.pins.list({ channel: general })).items.length;
await slack.bookmarks.add({ channel_id: general, title: "Board", type: "link", link: "https://board.example.com" });
out.bookmarks = (await slack.bookmarks.list({ channel_id: general })).bookmarks.map((b) => b.title);
await slack.reminders.add({ text: "ship it", time: "in 30 minutes" });
out.reminders = (await slack.reminders.list()).reminders.map((r) => r.text);
const group = (await slack.usergroups.create({ name: "Triage" })).usergroup;
await slack.usergroups.users.update({ usergroup: group.id, users: john });
out.group = (await slack.usergroups.users.list({ usergroup: group.id })).users;
out.permalink = (await slack.chat.getPermalink({ channel: general, message_ts: "1699564800.000123" })).permalink;
await slack.conversations.mark({ channel: general, ts: "1699564800.000123" });
const upload = await slack.filesUploadV2({ channel_id: general, content: "from node", filename: "node.txt",
                                          title: "Node file" });
const fileId = upload.files[0].files[0].id;
out.file = (await slack.files.info({ file: fileId })).file.title;
try {
  await slack.apiCall("calls.info", { id: "R1" });
} catch (e) {
  out.unsupported = e.data.error;
}
console.log(JSON.stringify(out));
"""


@pytest.mark.parametrize("backend", ISOLATING)
def test_npm_slack_web_api_works_the_state_backed_families(live_stack, make_env, backend):
    result = live_stack.run(make_env(), WEB_API_FAMILIES, ".mjs", backend=backend)
    assert result.exit_code == 0, result.stderr[-2000:]
    assert json.loads(result.stdout) == {
        "pins": 1, "bookmarks": ["Board"], "reminders": ["ship it"], "group": ["U02JOHNDOE1"],
        "permalink": "https://test-workspace.slack.com/archives/C01ABCD1234/p1699564800000123",
        "file": "Node file", "unsupported": "not_supported_by_replica"}
    assert {r.mode for r in result.requests} == {"transparent"}
    assert "files.slack.com" in {r.host for r in result.requests}
