"""A scripted agent for examples/suites/acme_teams.json: what a careful person at Acme would do
for each task, with the vendors' clients (pagerduty, asana, python-intercom, sendgrid, requests
and requests for Sentry's, Discord's and Trello's web APIs, slack_sdk, Linear's GraphQL over httpx)
and the tokens the run gives."""

import os

import httpx
import requests
from slack_sdk import WebClient


def post(words):
    slack = WebClient(token=os.environ["SLACK_TOKEN"])
    engineering = next(c["id"] for c in slack.conversations_list()["channels"] if c["name"] == "engineering")
    slack.chat_postMessage(channel=engineering, text=words)


def asana_api():
    import asana
    configuration = asana.Configuration()
    configuration.access_token = os.environ["ASANA_ACCESS_TOKEN"]
    return asana, asana.ApiClient(configuration)


def eng5_task(asana, client):
    me = asana.UsersApi(client).get_user("me", {})
    project = next(p for p in asana.ProjectsApi(client).get_projects({"workspace": me["workspaces"][0]["gid"]})
                   if p["name"] == "Checkout v2 launch")
    return project, next(t for t in asana.TasksApi(client).get_tasks_for_project(project["gid"], {})
                         if "ENG-5" in t["name"])


def sentry(method, path, **kw):
    answer = requests.request(method, f"https://sentry.io/api/0{path}", timeout=60,
                              headers={"Authorization": f"Bearer {os.environ['SENTRY_AUTH_TOKEN']}"}, **kw)
    answer.raise_for_status()
    return answer.json()


def cart_error():
    org = os.environ["SENTRY_ORG"]
    return next(i for i in sentry("GET", f"/projects/{org}/checkout-api/issues/", params={"query": "cart"}))


def acknowledge():
    import pagerduty
    session = pagerduty.RestApiV2Client(os.environ["PAGERDUTY_API_KEY"], default_from=os.environ["PAGERDUTY_FROM"])
    incident = next(i for i in session.iter_all("incidents", params={"statuses[]": ["triggered"]})
                    if "ENG-5" in i["title"])
    session.rput(f"incidents/{incident['id']}", json={"type": "incident_reference", "status": "acknowledged"})
    post(f"I have acknowledged the PagerDuty incident {incident['summary']}.")


def release_note_task():
    answer = httpx.post("https://api.linear.app/graphql", headers={"Authorization": os.environ["LINEAR_API_KEY"]},
                        json={"query": '{ issue(id: "ENG-5") { identifier title } }'}, timeout=60).json()
    issue = answer["data"]["issue"]
    asana, client = asana_api()
    project, _ = eng5_task(asana, client)
    asana.TasksApi(client).create_task({"data": {"name": f"Release note for {issue['identifier']}",
                                                 "notes": issue["title"], "projects": [project["gid"]]}}, {})


def tell_customer():
    from intercom import AdminReplyConversationRequest, Intercom
    times = cart_error()["count"]
    client = Intercom(token=os.environ["INTERCOM_ACCESS_TOKEN"])
    me = client.admins.identify()
    peter = next(c for c in client.conversations.list() if "Peter" in (c.source.author.name or ""))
    client.conversations.reply(conversation_id=peter.id, request=AdminReplyConversationRequest(
        message_type="comment", type="admin", admin_id=me.id,
        body=f"Sorry Peter: our error tracker has seen this failure {times} times; the fix is in review."))


def resolve_and_note():
    issue = cart_error()
    sentry("PUT", f"/organizations/{os.environ['SENTRY_ORG']}/issues/{issue['id']}/", json={"status": "resolved"})
    asana, client = asana_api()
    _, task = eng5_task(asana, client)
    asana.StoriesApi(client).create_story_for_task({"data": {"text": f"Sentry issue {issue['shortId']} is resolved."}},
                                                   task["gid"], {})


def mail_customers():
    from intercom import Intercom, SingleFilterSearchRequest
    from sendgrid import SendGridAPIClient
    from sendgrid.helpers.mail import Mail
    contacts = Intercom(token=os.environ["INTERCOM_ACCESS_TOKEN"]).contacts.search(
        query=SingleFilterSearchRequest(field="email", operator="$", value="@initech.example.com"))
    mail = SendGridAPIClient(os.environ["SENDGRID_API_KEY"])
    for contact in contacts:
        mail.send(Mail(from_email="support@example.com", to_emails=contact.email,
                       subject="Your checkout fix ships this week",
                       html_content=f"<p>Hi {contact.name.split()[0]}, the fix for large carts ships this week.</p>"))


def card_on_discord():
    auth = {"key": os.environ["TRELLO_API_KEY"], "token": os.environ["TRELLO_TOKEN"]}
    trello = "https://api.trello.com/1"
    board = next(b for b in requests.get(f"{trello}/members/me/boards", params=auth, timeout=60).json()
                 if b["name"] == "Checkout v2")
    card = next(c for c in requests.get(f"{trello}/boards/{board['id']}/cards", params=auth, timeout=60).json()
                if "ENG-5" in c["name"])
    listed = requests.get(f"{trello}/lists/{card['idList']}", params=auth, timeout=60).json()
    discord = requests.Session()
    discord.headers["Authorization"] = f"Bot {os.environ['DISCORD_BOT_TOKEN']}"
    api = "https://discord.com/api/v10"
    guild = discord.get(f"{api}/users/@me/guilds", timeout=60).json()[0]
    channel = next(c for c in discord.get(f"{api}/guilds/{guild['id']}/channels", timeout=60).json()
                   if c["name"] == "engineering")
    discord.post(f"{api}/channels/{channel['id']}/messages", timeout=60,
                 json={"content": f"The ENG-5 card is in {listed['name']} on the Checkout v2 board."}).raise_for_status()


TASKS = {"teams_1": acknowledge, "teams_2": release_note_task, "teams_3": tell_customer, "teams_4": resolve_and_note,
         "teams_5": mail_customers, "teams_6": card_on_discord}

TASKS[os.environ["DETOUR_TEST_ID"]]()
