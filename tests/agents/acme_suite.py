"""A scripted agent for the acme world's suite (examples/suites/acme.json): what a careful person
at Acme would do for each task, with the vendors' clients (slack_sdk, Linear's GraphQL over
httpx, google-api-python-client, box-sdk-gen) and the tokens the run gives, unaware of detour."""

import functools
import io
import os


# Each vendor's client is made (and its library imported) on a task's first use of it: a task
# touches two or three of the four services, and the four libraries cost ~0.5 s of CPU to import
# (box_sdk_gen alone ~0.4 s), on every one of the hundreds of runs this agent makes in the tests.
@functools.cache
def slack():
    from slack_sdk import WebClient
    return WebClient(token=os.environ["SLACK_TOKEN"])


@functools.cache
def linear_http():
    import httpx
    return httpx.Client(base_url="https://api.linear.app", headers={"Authorization": os.environ["LINEAR_API_KEY"]},
                        timeout=60)  # the first call may wait for the replica to build the schema


@functools.cache
def calendar():
    from google.oauth2.credentials import Credentials
    from googleapiclient.discovery import build
    return build("calendar", "v3", credentials=Credentials(os.environ["GOOGLE_OAUTH_ACCESS_TOKEN"]))


@functools.cache
def box():
    from box_sdk_gen import BoxClient, BoxDeveloperTokenAuth
    return BoxClient(auth=BoxDeveloperTokenAuth(token=os.environ["BOX_DEVELOPER_TOKEN"]))


ISSUE_FIELDS = "id identifier title state { name } assignee { name email } creator { name email } team { id }"


def linear(query, **variables):
    body = linear_http().post("/graphql", json={"query": query, "variables": variables}).json()
    if body.get("errors"):
        raise SystemExit(f"Linear said: {body['errors'][0]['message']}")
    return body["data"]


def issue(identifier="ENG-5"):
    return linear(f"query($id: String!) {{ issue(id: $id) {{ {ISSUE_FIELDS} }} }}", id=identifier)["issue"]


def comment(issue_id, body):
    linear("mutation($i: CommentCreateInput!) { commentCreate(input: $i) { success } }",
           i={"issueId": issue_id, "body": body})


def move(identifier, state_name):
    found = issue(identifier)
    states = linear("query($id: String!) { team(id: $id) { states { nodes { id name } } } }",
                    id=found["team"]["id"])["team"]["states"]["nodes"]
    state_id = next(s["id"] for s in states if s["name"] == state_name)
    linear("mutation($id: String!, $i: IssueUpdateInput!) { issueUpdate(id: $id, input: $i) { success } }",
           id=found["id"], i={"stateId": state_id})


def channel(name):
    return next(c["id"] for c in slack().conversations_list()["channels"] if c["name"] == name)


def post(text, thread=None, to="engineering"):
    slack().chat_postMessage(channel=channel(to), text=text, thread_ts=thread)


def thread_about(words):
    """The ts of the #engineering message that says `words`."""
    history = slack().conversations_history(channel=channel("engineering"))["messages"]
    return next(m["ts"] for m in history if words in m["text"])


def meeting(about="ENG-5"):
    return calendar().events().list(calendarId="primary", q=about).execute()["items"][0]


def schedule(summary, start, end, emails):
    calendar().events().insert(calendarId="primary", body={
        "summary": summary, "start": {"dateTime": start}, "end": {"dateTime": end},
        "attendees": [{"email": e} for e in emails]}).execute()


def box_folder(name, parent="0"):
    items = box().folders.get_folder_items(parent).entries
    return next(i for i in items if i.name == name and i.type.value == "folder")


def spec():
    """The checkout v2 spec: its Box file and its text."""
    folder = box_folder("Acme Engineering")
    found = next(i for i in box().folders.get_folder_items(folder.id).entries if i.name.startswith("checkout-v2-spec"))
    return found, box().downloads.download_file(found.id).read().decode()


def spec_owners():
    """The people the spec's `Owner:` line names, as emails (the Slack directory has them)."""
    owners = next(line for line in spec()[1].splitlines() if line.startswith("Owner:"))
    people = slack().users_list()["members"]
    return [p["profile"]["email"] for p in people if p.get("real_name") and p["real_name"] in owners]


def save(name, text, folder="Acme Engineering"):
    from box_sdk_gen.managers.uploads import UploadFileAttributes, UploadFileAttributesParentField
    parent = UploadFileAttributesParentField(id=box_folder(folder).id)
    box().uploads.upload_file(UploadFileAttributes(name=name, parent=parent), io.BytesIO(text.encode()))


def invite(event, email):
    attendees = event.get("attendees", []) + [{"email": email}]
    calendar().events().patch(calendarId="primary", eventId=event["id"], body={"attendees": attendees}).execute()


def summarise():
    found = issue()
    post(f"{found['identifier']}: {found['title']} ({found['state']['name']}), assigned to {found['assignee']['name']}.")


def follow_up():
    found = issue()
    schedule(f"{found['identifier']} follow-up", "2025-12-01T15:00:00Z", "2025-12-01T15:30:00Z",
             [found["assignee"]["email"], found["creator"]["email"]])


def review_request():
    request = thread_about("settings page")
    eng = linear('{ teams { nodes { id name } } }')["teams"]["nodes"]
    yuki = next(u for u in linear("{ users { nodes { id name } } }")["users"]["nodes"] if u["name"].startswith("Yuki"))
    made = linear("mutation($i: IssueCreateInput!) { issueCreate(input: $i) { issue { identifier } } }",
                  i={"teamId": next(t["id"] for t in eng if t["name"] == "Engineering"),
                     "title": "Review the new settings page", "assigneeId": yuki["id"]})["issueCreate"]["issue"]
    post(f"Tracked as {made['identifier']}, assigned to you.", thread=request)


def share_meeting():
    event = meeting()
    invited = ", ".join(a["email"] for a in event.get("attendees", []))
    post(f"ENG-5 triage: {event['start']['dateTime']} (15:00 UTC). Invited: {invited}")


def invite_designer():
    owners = next(line for line in spec()[1].splitlines() if line.startswith("Owner:"))
    designer = owners.split(":", 1)[1].split("(design)")[0].strip()
    people = slack().users_list()["members"]
    invite(meeting(), next(p["profile"]["email"] for p in people if p.get("real_name") == designer))


def cross_link():
    from box_sdk_gen.managers.comments import CreateCommentItem, CreateCommentItemTypeField
    found, _ = spec()
    box().comments.create_comment("ENG-5 in Linear tracks the cart paging bug.",
                                  CreateCommentItem(id=found.id, type=CreateCommentItemTypeField.FILE))
    comment(issue()["id"], f"The checkout v2 spec is in Box, folder Acme Engineering ({found.name}).")


def accept():
    event = meeting()
    me = calendar().calendarList().get(calendarId="primary").execute()["id"]
    attendees = [{**a, "responseStatus": "accepted"} if a["email"] == me else a for a in event["attendees"]]
    calendar().events().patch(calendarId="primary", eventId=event["id"], body={"attendees": attendees}).execute()
    post("I'll be there.", thread=thread_about("ENG-5"))


def tell_robert():
    robert = next(u for u in linear("{ users { nodes { id name assignedIssues { nodes { identifier title } } } } }")
                  ["users"]["nodes"] if u["name"] == "Robert Smith")
    listed = "; ".join(f"{i['identifier']} {i['title']}" for i in robert["assignedIssues"]["nodes"])
    member = next(m for m in slack().users_list()["members"] if m.get("real_name") == "Robert Smith")
    dm = slack().conversations_open(users=member["id"])["channel"]["id"]
    slack().chat_postMessage(channel=dm, text=f"Your Linear issues: {listed}")


def issue_folder():
    from box_sdk_gen.managers.folders import CreateFolderParent
    made = box().folders.create_folder("ENG-5", CreateFolderParent(id=box_folder("Acme Engineering").id))
    comment(issue()["id"], f"Files for this issue go in the Box folder ENG-5 (id {made.id}).")


def wrap_up():
    move("ENG-5", "Done")
    calendar().events().delete(calendarId="primary", eventId=meeting()["id"]).execute()
    post("ENG-5 is fixed: checkout now reads every page of a cart.")
    save("eng-5-postmortem.md", "# ENG-5 postmortem\n\nCheckout read only the first 50 items of a cart.\n")


TASKS = {
    "acme_1": summarise,
    "acme_2": lambda: comment(issue()["id"], f"Triage meeting: {meeting()['start']['dateTime']} (2025-11-27 15:00 UTC)."),
    "acme_3": follow_up,
    "acme_4": lambda: post(f"A cart page holds {'50' if '50 at a time' in spec()[1] else '?'} items (checkout v2 spec)."),
    "acme_5": lambda: save("eng-5-status.md", f"# {issue()['title']}\n\nStatus: {issue()['state']['name']}\n"),
    "acme_6": review_request,
    "acme_7": lambda: (move("ENG-5", "In Progress"), post("ENG-5 is now In Progress.")),
    "acme_8": share_meeting,
    "acme_9": invite_designer,
    "acme_10": cross_link,
    "acme_11": accept,
    "acme_12": tell_robert,
    "acme_13": lambda: schedule("Checkout v2 spec review", "2025-12-02T10:00:00Z", "2025-12-02T11:00:00Z", spec_owners()),
    "acme_14": issue_folder,
    "acme_15": wrap_up,
}

TASKS[os.environ["DETOUR_TEST_ID"]]()
