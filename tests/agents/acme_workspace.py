"""A scripted agent for examples/suites/acme_workspace.json: what a careful person at Acme would
do for each task, with the vendors' clients (slack_sdk, Linear's GraphQL over httpx,
google-api-python-client for Docs, Tasks, Sheets, Chat and Calendar) and the tokens the run gives."""

import os

import httpx
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
from slack_sdk import WebClient

slack = WebClient(token=os.environ["SLACK_TOKEN"])
google = Credentials(os.environ["GOOGLE_OAUTH_ACCESS_TOKEN"])
docs, tasks, calendar = (build(name, version, credentials=google)
                         for name, version in (("docs", "v1"), ("tasks", "v1"), ("calendar", "v3")))


def document(title):
    """A document by title: Docs has no search, so the plan's id is known from Drive in real life; here, its id."""
    known = {"Checkout v2 launch plan": "1Acme0Checkout0v2Launch0Plan0000000000000000"}
    return docs.documents().get(documentId=known[title]).execute()


def text(found):
    return "".join(e["textRun"]["content"] for part in found["body"]["content"]
                   for e in part.get("paragraph", {}).get("elements", []) if "textRun" in e)


def post(words):
    engineering = next(c["id"] for c in slack.conversations_list()["channels"] if c["name"] == "engineering")
    slack.chat_postMessage(channel=engineering, text=words)


def tasklist(title):
    return next(t["id"] for t in tasks.tasklists().list().execute()["items"] if t["title"] == title)


def announce():
    launch = next(line for line in text(document("Checkout v2 launch plan")).splitlines() if line.startswith("Launch:"))
    post(f"Checkout v2 {launch.lower()}")


def task_for_issue():
    answer = httpx.post("https://api.linear.app/graphql", headers={"Authorization": os.environ["LINEAR_API_KEY"]},
                        json={"query": '{ issue(id: "ENG-5") { identifier title } }'}, timeout=60).json()
    issue = answer["data"]["issue"]
    tasks.tasks().insert(tasklist=tasklist("Checkout v2 launch"),
                         body={"title": f"Fix {issue['identifier']}", "notes": issue["title"]}).execute()


def move_launch():
    plan = document("Checkout v2 launch plan")
    docs.documents().batchUpdate(documentId=plan["documentId"], body={"requests": [
        {"replaceAllText": {"containsText": {"text": "Monday", "matchCase": True}, "replaceText": "Tuesday"}}]}).execute()
    listed = tasks.tasks().list(tasklist=tasklist("Checkout v2 launch")).execute()["items"]
    for task in listed:
        if "sign off" in task["title"].lower() and task["status"] != "completed":
            tasks.tasks().patch(tasklist=task["tasklist"], task=task["id"], body={"status": "completed"}).execute()
    post("The checkout v2 launch moves to Tuesday.")


def triage_notes():
    meeting = calendar.events().list(calendarId="primary", q="ENG-5").execute()["items"][0]
    made = docs.documents().create(body={"title": "ENG-5 triage"}).execute()
    docs.documents().batchUpdate(documentId=made["documentId"], body={"requests": [{"insertText": {
        "endOfSegmentLocation": {}, "text": f"Triage meeting: {meeting['start']['dateTime']}\n"}}]}).execute()


def review_owner():
    sheets = build("sheets", "v4", credentials=google).spreadsheets().values()
    rows = sheets.get(spreadsheetId="1Acme0Launch0Tracker000000000000000000000000", range="Tasks!A:C").execute()["values"]
    owner = next(row[1] for row in rows if row[0] == "Launch review")
    chat = build("chat", "v1", credentials=google).spaces()
    space = next(s["name"] for s in chat.list().execute()["spaces"] if s["displayName"] == "Checkout v2 launch")
    chat.messages().create(parent=space, body={"text": f"{owner} owns the launch review."}).execute()


TASKS = {"workspace_1": announce, "workspace_2": task_for_issue, "workspace_3": move_launch,
         "workspace_4": triage_notes, "workspace_5": review_owner}

TASKS[os.environ["DETOUR_TEST_ID"]]()
