"""A scripted agent for examples/suites/acme_workspace.json: what a careful person at Acme would
do for each task, with the vendors' clients (slack_sdk, Linear's GraphQL over httpx,
google-api-python-client for Docs, Tasks, Sheets, Chat and Calendar, msgraph-sdk for Outlook, Teams
and OneDrive) and the tokens the run gives."""

import asyncio
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


async def graph(work):
    """`work(client)` with msgraph-sdk, as the run's Azure credentials allow."""
    from azure.identity.aio import EnvironmentCredential
    from msgraph import GraphServiceClient
    credential = EnvironmentCredential()
    try:
        return await work(GraphServiceClient(credentials=credential, scopes=["https://graph.microsoft.com/.default"]))
    finally:
        await credential.close()


async def answer_priya(client):
    from msgraph.generated.users.item.messages.item.reply.reply_post_request_body import ReplyPostRequestBody
    me = client.users.by_user_id("agent@example.com")
    team = (await me.joined_teams.get()).value[0]
    launch = next(c for c in (await client.teams.by_team_id(team.id).channels.get()).value
                  if c.display_name == "Checkout v2")
    messages = client.teams.by_team_id(team.id).channels.by_channel_id(launch.id).messages
    said = []
    for message in (await messages.get()).value:  # a thread's replies hold the answers
        said += [message.body.content, *(r.body.content for r in
                                         (await messages.by_chat_message_id(message.id).replies.get()).value)]
    day = next(word.strip(".") for text in said if "ENG-5" in text for word in text.split()
               if word.strip(".") in ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday"))
    asked = next(m for m in (await me.mail_folders.by_mail_folder_id("inbox").messages.get()).value
                 if m.subject.startswith("Customer asks"))
    await me.messages.by_message_id(asked.id).reply.post(ReplyPostRequestBody(
        comment=f"ENG-5 should be fixed by {day}."))


async def book_review(client):
    from msgraph.generated.models.attendee import Attendee
    from msgraph.generated.models.date_time_time_zone import DateTimeTimeZone
    from msgraph.generated.models.email_address import EmailAddress
    from msgraph.generated.models.event import Event
    from msgraph.generated.models.item_body import ItemBody
    me = client.users.by_user_id("agent@example.com")
    drive = await me.drive.get()
    notes = (await client.drives.by_drive_id(drive.id).items.by_drive_item_id(
        "root:/Design/checkout-v2-notes.txt:").content.get()).decode()
    key = next(word.strip("().,") for word in notes.split() if word.startswith("ENG-"))
    await me.events.post(Event(
        subject="Launch review", body=ItemBody(content=f"Open question: {key} must be fixed before launch."),
        start=DateTimeTimeZone(date_time="2026-01-14T09:00:00", time_zone="UTC"),
        end=DateTimeTimeZone(date_time="2026-01-14T09:30:00", time_zone="UTC"),
        attendees=[Attendee(email_address=EmailAddress(address=a)) for a in ("sarah@example.com", "john@example.com")]))


TASKS = {"workspace_1": announce, "workspace_2": task_for_issue, "workspace_3": move_launch,
         "workspace_4": triage_notes, "workspace_5": review_owner,
         "workspace_6": lambda: asyncio.run(graph(answer_priya)), "workspace_7": lambda: asyncio.run(graph(book_review))}

TASKS[os.environ["DETOUR_TEST_ID"]]()
