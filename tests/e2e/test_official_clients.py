"""Slack's official clients, unmodified, against the replica: slack_sdk (sync and async) and
the npm @slack/web-api. @slack/web-api ignores proxy variables, so it runs on the namespace
backend only, where anything that is not captured is stopped on this machine."""

import json

import pytest

from tests.conftest import ISOLATING, needs_docker, needs_namespaces

SLACK_SDK = """
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

slack = WebClient(token="xoxb-1")
room = slack.conversations_create(name="sdk-room")["channel"]["id"]
slack.conversations_invite(channel=room, users="U02JOHNDOE1")
parent = slack.chat_postMessage(channel=room, text="kickoff")["ts"]
slack.chat_postMessage(channel=room, text="first reply", thread_ts=parent)
slack.reactions_add(channel=room, timestamp=parent, name="rocket")
assert [m["text"] for m in slack.conversations_replies(channel=room, ts=parent)["messages"]] == ["kickoff", "first reply"]
assert slack.search_messages(query="kickoff")["messages"]["total"] == 1
members = [m["id"] for page in slack.users_list(limit=1) for m in page["members"]]   # the SDK follows cursors
assert len(members) == 3, members
try:
    slack.chat_postMessage(channel="no-such-channel", text="x")
except SlackApiError as e:
    print("error", e.response["error"])
"""

ASYNC_SLACK_SDK = """
import asyncio
from slack_sdk.web.async_client import AsyncWebClient

async def main():
    slack = AsyncWebClient(token="xoxb-1")
    await slack.conversations_setTopic(channel="C01ABCD1234", topic="async topic")
    info = await slack.conversations_info(channel="C01ABCD1234")
    print(info["channel"]["topic"]["value"])

asyncio.run(main())
"""

WEB_API = """
import { WebClient } from "@slack/web-api";

const slack = new WebClient("xoxb-1");
const { channel } = await slack.conversations.create({ name: "npm-room" });
await slack.chat.postMessage({ channel: channel.id, text: "from @slack/web-api" });
let names = [];
for await (const page of slack.paginate("conversations.list", { limit: 1 })) names.push(...page.channels.map((c) => c.name));
try {
  await slack.reactions.add({ channel: channel.id, timestamp: "1.000001", name: "tada" });
} catch (e) {
  console.log("error", e.data.error);
}
console.log(names.sort().join(","));
"""


def test_slack_sdk_web_client(live_stack, make_env):
    result = live_stack.run(make_env(), SLACK_SDK, ".py")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == "error channel_not_found"
    tables = sorted(i["__table__"] for i in result.diff.inserts)
    assert tables == ["channel_members", "channel_members", "channels", "message_reactions", "messages", "messages"]


def test_slack_sdk_async_web_client(live_stack, make_env):
    result = live_stack.run(make_env(), ASYNC_SLACK_SDK, ".py")
    assert (result.exit_code, result.stdout.strip()) == (0, "async topic"), result.stderr
    assert result.diff.updates[0]["after"]["topic_text"] == "async topic"


@pytest.mark.parametrize("backend", ISOLATING)
@pytest.mark.parametrize("mode", ["proxy", "rewrite"])
def test_npm_slack_web_api(live_stack, make_env, mode, backend):
    result = live_stack.run(make_env(), WEB_API, ".mjs", backend=backend, mode=mode)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == ["error message_not_found", "general,npm-room,random"]
    assert {i["__table__"] for i in result.diff.inserts} == {"channels", "channel_members", "messages"}
    assert {r.mode for r in result.requests} == {"transparent" if mode == "proxy" else "rewrite"}


LINEAR_SDK = """
import { LinearClient } from "@linear/sdk";

const linear = new LinearClient({ apiKey: "lin_api_agent" });
const me = await linear.viewer;
const teams = await linear.teams();
const eng = teams.nodes.find((t) => t.key === "ENG");
let page = await linear.issues({ first: 2 });
const identifiers = page.nodes.map((i) => i.identifier);
while (page.pageInfo.hasNextPage) {
  page = await page.fetchNext();
  identifiers.push(...page.nodes.slice(-2).map((i) => i.identifier));
}
const first = await linear.issue("ENG-1");
const created = await (await linear.createIssue({ teamId: eng.id, title: "From @linear/sdk", priority: 2 })).issue;
await linear.updateIssue(created.id, { title: "From @linear/sdk, edited" });
await linear.createComment({ issueId: first.id, body: "Commented through the SDK" });
console.log(JSON.stringify({ me: me.name, teams: teams.nodes.map((t) => t.key).sort(),
  issues: [...new Set(identifiers)].length, first: first.identifier, state: (await first.state).name,
  created: created.identifier }));
"""


@pytest.mark.parametrize("backend, mode", [("process", "proxy"),
                                           pytest.param("namespace", "proxy", marks=needs_namespaces),
                                           pytest.param("namespace", "rewrite", marks=needs_namespaces),
                                           pytest.param("docker", "proxy", marks=needs_docker),
                                           pytest.param("docker", "rewrite", marks=needs_docker)])
def test_linear_sdk(live_stack, make_env, backend, mode):
    result = live_stack.run(make_env("linear_default"), LINEAR_SDK, ".mjs", backend=backend, mode=mode)
    assert result.exit_code == 0, result.stderr[-1500:]
    out = json.loads(result.stdout)
    assert out == {"me": "AI Agent", "teams": ["ENG", "PROD"], "issues": 4, "first": "ENG-1", "state": "Backlog",
                   "created": "ENG-5"}
    inserted = {(i["__table__"], i.get("title") or i.get("body")) for i in result.diff.inserts
                if i["__table__"] in ("issues", "comments")}
    assert inserted == {("issues", "From @linear/sdk, edited"), ("comments", "Commented through the SDK")}
    assert {i["__table__"] for i in result.diff.inserts} == {"issues", "comments", "issue_history", "issue_subscribers"}
    assert {r.service for r in result.requests} == {"linear"}


LINEAR_SDK_ENTITIES = """
import { LinearClient } from "@linear/sdk";

const linear = new LinearClient({ apiKey: "lin_api_agent" });
const eng = (await linear.teams()).nodes.find((t) => t.key === "ENG");
const epic = await (await linear.createIssue({ teamId: eng.id, title: "Epic: onboarding" })).issue;
const part = await (await linear.createIssue({ teamId: eng.id, title: "Welcome email", parentId: epic.id,
                                                estimate: 2, dueDate: "2031-03-01" })).issue;
const label = await (await linear.createIssueLabel({ name: "growth", teamId: eng.id })).issueLabel;
await linear.updateIssue(part.id, { addedLabelIds: [label.id] });
const project = await (await linear.createProject({ name: "Onboarding", teamIds: [eng.id] })).project;
const cycle = await (await linear.createCycle({ teamId: eng.id, startsAt: new Date("2031-01-01"),
                                               endsAt: new Date("2031-01-14") })).cycle;
await linear.updateIssue(part.id, { projectId: project.id, cycleId: cycle.id });
await linear.createComment({ issueId: part.id, body: "Drafted the copy" });
await linear.createAttachment({ issueId: part.id, url: "https://docs.example.com/copy", title: "Copy doc" });
const again = await linear.issue(part.id);
const parent = await again.parent;
const children = await (await linear.issue(epic.id)).children();
const labels = await again.labels();
const comments = await again.comments();
const attachments = await again.attachments();
const inProject = await (await linear.project(project.id)).issues();
const inCycle = await (await linear.cycle(cycle.id)).issues();
const found = await linear.searchIssues("welcome");
console.log(JSON.stringify({
  parent: parent.identifier, children: children.nodes.map((c) => c.identifier), labels: labels.nodes.map((l) => l.name),
  comments: comments.nodes.map((c) => c.body), attachments: attachments.nodes.map((a) => a.title),
  project: inProject.nodes.map((i) => i.identifier), cycle: inCycle.nodes.map((i) => i.identifier),
  estimate: again.estimate, found: found.nodes.map((i) => i.title),
}));
"""


@pytest.mark.parametrize("backend", ISOLATING)
def test_linear_sdk_works_the_state_backed_entities(live_stack, make_env, backend):
    result = live_stack.run(make_env("linear_default"), LINEAR_SDK_ENTITIES, ".mjs", backend=backend)
    assert result.exit_code == 0, result.stderr[-2000:]
    out = json.loads(result.stdout)
    assert out == {"parent": "ENG-5", "children": ["ENG-6"], "labels": ["growth"], "comments": ["Drafted the copy"],
                   "attachments": ["Copy doc"], "project": ["ENG-6"], "cycle": ["ENG-6"], "estimate": 2,
                   "found": ["Welcome email"]}
    tables = {i["__table__"] for i in result.diff.inserts}
    assert {"issues", "issue_labels", "projects", "project_teams", "cycles", "comments", "attachments",
            "issue_history", "issue_label_issue_association"} <= tables


LINEAR_SDK_ERRORS = """
import { LinearClient, LinearErrorType } from "@linear/sdk";
const linear = new LinearClient({ apiKey: "lin_api_agent" });
try {
  await linear.issue("ENG-999");
} catch (e) {
  console.log(JSON.stringify({ type: e.type, invalid: e.type === LinearErrorType.InvalidInput, message: e.message }));
}
"""


def test_linear_sdk_reads_an_unknown_id_as_its_invalid_input_error(live_stack, make_env):
    """@linear/sdk maps `extensions.type` to its typed errors: an unknown id is InvalidInput."""
    result = live_stack.run(make_env("linear_default"), LINEAR_SDK_ERRORS, ".mjs")
    assert result.exit_code == 0, result.stderr[-1500:]
    out = json.loads(result.stdout)
    assert out["invalid"] is True and "Entity not found" in out["message"]


LINEAR_SDK_ISSUED_KEY = """
import { LinearClient, LinearErrorType } from "@linear/sdk";
const linear = new LinearClient({ apiKey: process.env.LINEAR_API_KEY });
const me = await linear.viewer;
let refused;
try {
  await new LinearClient({ apiKey: "lin_api_made_up" }).viewer;
} catch (e) {
  refused = e.type === LinearErrorType.AuthenticationError;
}
const eng = (await linear.teams()).nodes.find((t) => t.key === "ENG");
const batch = await linear.createIssueBatch({ issues: [{ teamId: eng.id, title: "one" }, { teamId: eng.id, title: "two" }] });
const design = await (await linear.createTeam({ name: "Design" })).team;
const [first] = await batch.issues;
await linear.updateIssue(first.id, { teamId: design.id });
const moved = await linear.issue(first.id);
console.log(JSON.stringify({ me: me.name, refused, batch: (await batch.issues).map((i) => i.identifier),
  moved: [moved.identifier, moved.previousIdentifiers, (await moved.team).key, (await moved.state).name] }));
"""


@pytest.mark.parametrize("backend", ["process", pytest.param("namespace", marks=needs_namespaces)])
def test_linear_sdk_with_the_key_the_environment_issued(live_stack, backend):
    """An environment that requires issued keys: the run's LINEAR_API_KEY is its user's, any other
    key is @linear/sdk's AuthenticationError; batch creation and a move to another team."""
    env = live_stack.store.create("linear_default", require_issued_tokens=True).env_id
    result = live_stack.run(env, LINEAR_SDK_ISSUED_KEY, ".mjs", backend=backend)
    assert result.exit_code == 0, result.stderr[-1500:]
    out = json.loads(result.stdout)
    assert out == {"me": "AI Agent", "refused": True, "batch": ["ENG-5", "ENG-6"],
                   "moved": ["DES-1", ["ENG-5"], "DES", "Backlog"]}
