"""A scripted Slack app for the reactive acme suite (examples/suites/acme_reactive.json): a Bolt
app on Socket Mode that does what Acme's people ask of it, where they ask it, with the tokens the
run gives (SLACK_TOKEN, SLACK_APP_TOKEN, LINEAR_API_KEY), unaware of detour. It ends once its
task is done (for the first task: once its answer is acknowledged)."""

import os
import re

import httpx
from slack_bolt import App
from slack_bolt.adapter.socket_mode import SocketModeHandler

app = App(token=os.environ["SLACK_TOKEN"])
ME = app.client.auth_test()["user_id"]
WAIT_FOR_ACK = "acknowledge" in os.environ.get("DETOUR_PROMPT", "")
linear_http = httpx.Client(base_url="https://api.linear.app", headers={"Authorization": os.environ["LINEAR_API_KEY"]},
                           timeout=60)  # the first call may wait for the replica to build the schema


def linear(query, **variables):
    body = linear_http.post("/graphql", json={"query": query, "variables": variables}).json()
    if body.get("errors"):
        raise SystemExit(f"Linear said: {body['errors'][0]['message']}")
    return body["data"]


def file_bug(report: str, reporter: str) -> str:
    teams = linear("{ teams { nodes { id key } } }")["teams"]["nodes"]
    made = linear("mutation($i: IssueCreateInput!) { issueCreate(input: $i) { issue { identifier } } }",
                  i={"teamId": next(t["id"] for t in teams if t["key"] == "ENG"), "title": report[:80],
                     "description": f"Reported in Slack by <@{reporter}>."})
    return made["issueCreate"]["issue"]["identifier"]


def assignee(identifier: str) -> str:
    found = linear("query($id: String!) { issue(id: $id) { assignee { name } } }", id=identifier)["issue"]
    return found["assignee"]["name"] if found["assignee"] else "nobody"


@app.event("app_mention")
def mentioned(event, say):
    text = event["text"]
    if "bug:" in text:
        say(text=f"Filed {file_bug(text.split('bug:', 1)[1].strip(), event['user'])}.", thread_ts=event["ts"])
    else:
        identifier = re.search(r"[A-Z]+-\d+", text)[0]
        say(text=f"{identifier} is assigned to {assignee(identifier)}.", thread_ts=event["ts"])
        if WAIT_FOR_ACK:
            return
    os._exit(0)


@app.event("reaction_added")
def acknowledged(event):
    if event.get("item_user") == ME:
        os._exit(0)


@app.event("channel_created")
def new_channel(event, client):
    channel = event["channel"]["id"]
    client.conversations_join(channel=channel)
    client.chat_postMessage(channel=channel, text="I am tracking this incident here.")
    os._exit(0)


@app.event("message")
def ignored(event):
    """Every message in its channels comes too; a mention is answered above."""


SocketModeHandler(app, os.environ["SLACK_APP_TOKEN"]).start()
