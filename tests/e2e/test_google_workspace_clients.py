"""Google's official Python client (google-api-python-client, with the discovery documents it
ships), run unmodified in a sandbox on the acme world, reaches the five Google replicas generated
from those documents (mock_services/tasks, docs, sheets, people, chat) through the proxy, one
program per backend (each sandbox run is the expensive part; one covers all five):

- Tasks: lists, `list_next` paging by nextPageToken, a task inserted, completed and read back,
  a list made; a missing task is Google's 404, `tasks.clear` (not served) its 501.
- Docs: a seeded document's text from its body's paragraphs; create, batchUpdate with
  insertText, replaceAllText (its count) and deleteContentRange, read back; 404, and 501 for a
  request kind it does not apply.
- Sheets: A1 reads, an append after the table, a cell updated as entered (text that reads as a
  number is one), batchGet unformatted, create and addSheet; 400 for an unknown sheet, 501.
- Contacts (People): connections with `list_next`, create, search, update by etag and field
  mask, a batch get (one found, one not), delete; 400 without the field mask Google requires, 404 once deleted.
- Chat: spaces, paged messages, members, a message posted as the acting person and edited by
  its update mask, a space made; 404.

The diff holds what the program made, as it ended, and the cells it changed."""

from __future__ import annotations

import pytest

from tests.conftest import ISOLATING
from tests.e2e.official_clients import run_official_client

AGENT = r'''
import json
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
from googleapiclient.errors import HttpError


def refused(call):
    """[status, Google's reason] of a call that must fail."""
    try:
        call.execute()
    except HttpError as e:
        return [e.resp.status, e.error_details[0]["reason"]]
    raise SystemExit(f"{call.uri} answered")


def tasks():
    service = build("tasks", "v1", credentials=Credentials(token="ya29.detour"))
    lists = service.tasklists().list().execute()["items"]
    launch = next(l["id"] for l in lists if l["title"] == "Checkout v2 launch")
    titles, request = [], service.tasks().list(tasklist=launch, maxResults=1)
    while request is not None:
        page = request.execute()
        titles += [t["title"] for t in page.get("items", [])]
        request = service.tasks().list_next(request, page)
    made = service.tasks().insert(tasklist=launch, body={"title": "Book the launch review",
                                                         "due": "2026-01-12T00:00:00.000Z"}).execute()
    service.tasks().patch(tasklist=launch, task=made["id"], body={"status": "completed"}).execute()
    again = service.tasks().get(tasklist=launch, task=made["id"]).execute()
    hiring = service.tasklists().insert(body={"title": "Q1 hiring"}).execute()
    out = {"lists": sorted(l["title"] for l in lists), "paged": titles,
           "made": [made["kind"], made["status"]], "again": [again["title"], again["status"]],
           "list": [hiring["kind"], hiring["title"]]}
    out["missing"] = refused(service.tasks().get(tasklist=launch, task="missing"))
    out["clear"] = refused(service.tasks().clear(tasklist=launch))
    return out


def docs():
    docs = build("docs", "v1", credentials=Credentials(token="ya29.detour"))

    def text(document):
        return "".join(e["textRun"]["content"] for part in document["body"]["content"]
                       for e in part.get("paragraph", {}).get("elements", []) if "textRun" in e)

    plan = docs.documents().get(documentId="1Acme0Checkout0v2Launch0Plan0000000000000000").execute()
    made = docs.documents().create(body={"title": "Launch review"}).execute()
    answer = docs.documents().batchUpdate(documentId=made["documentId"], body={"requests": [
        {"insertText": {"location": {"index": 1}, "text": "Launch on Monday.\nOwner: Sarah\n"}},
        {"replaceAllText": {"containsText": {"text": "monday"}, "replaceText": "Tuesday"}},
        {"deleteContentRange": {"range": {"startIndex": 20, "endIndex": 33}}}]}).execute()
    again = docs.documents().get(documentId=made["documentId"]).execute()
    out = {"plan": text(plan).splitlines()[1], "title": again["title"], "text": text(again),
           "replaced": answer["replies"][1]["replaceAllText"]["occurrencesChanged"]}
    out["missing"] = refused(docs.documents().get(documentId="nope"))
    out["table"] = refused(docs.documents().batchUpdate(documentId=made["documentId"], body={
        "requests": [{"insertTable": {"rows": 1, "columns": 1, "endOfSegmentLocation": {}}}]}))
    return out


def sheets():
    values = build("sheets", "v4", credentials=Credentials(token="ya29.detour")).spreadsheets()
    TRACKER = "1Acme0Launch0Tracker000000000000000000000000"
    read = values.values().get(spreadsheetId=TRACKER, range="Tasks!A1:C").execute()
    added = values.values().append(spreadsheetId=TRACKER, range="Tasks!A:C", valueInputOption="USER_ENTERED",
                                   body={"values": [["Write launch notes", "Priya", "Not started"]]}).execute()
    values.values().update(spreadsheetId=TRACKER, range="Budget!B3", valueInputOption="USER_ENTERED",
                           body={"values": [["950"]]}).execute()
    both = values.values().batchGet(spreadsheetId=TRACKER, ranges=["Tasks!A5:C5", "Budget!B2:B3"],
                                    valueRenderOption="UNFORMATTED_VALUE").execute()["valueRanges"]
    made = values.create(body={"properties": {"title": "Hiring plan"}}).execute()
    sheet = values.batchUpdate(spreadsheetId=made["spreadsheetId"], body={"requests": [
        {"addSheet": {"properties": {"title": "Q1"}}}]}).execute()["replies"][0]["addSheet"]["properties"]
    out = {"range": read["range"], "owner": read["values"][1][1],
           "appended": [added["tableRange"], added["updates"]["updatedRange"]], "both": [r["values"] for r in both],
           "made": [made["properties"]["title"], [s["properties"]["title"] for s in made["sheets"]]],
           "sheet": [sheet["title"], sheet["index"]]}
    out["unknown"] = refused(values.values().get(spreadsheetId=TRACKER, range="Nope!A1"))
    out["merge"] = refused(values.batchUpdate(spreadsheetId=TRACKER, body={"requests": [{"mergeCells": {}}]}))
    return out


def people():
    people = build("people", "v1", credentials=Credentials(token="ya29.detour")).people()
    names, request = [], people.connections().list(resourceName="people/me", personFields="names,emailAddresses",
                                                   pageSize=4)
    while request is not None:
        page = request.execute()
        names += [p["names"][0]["displayName"] for p in page.get("connections", [])]
        request = people.connections().list_next(request, page)
    made = people.createContact(body={"names": [{"givenName": "Ola", "familyName": "Berg"}],
                                      "emailAddresses": [{"value": "ola@fjord.example"}]}).execute()
    found = people.searchContacts(query="ola", readMask="names,emailAddresses").execute()["results"]
    changed = people.updateContact(resourceName=made["resourceName"], updatePersonFields="phoneNumbers",
                                   personFields="names,phoneNumbers",
                                   body={"etag": made["etag"], "phoneNumbers": [{"value": "+47 5550 1234"}]}).execute()
    kept = people.createContact(body={"names": [{"givenName": "Kari", "familyName": "Nordmann"}]}).execute()
    batch = people.getBatchGet(resourceNames=[kept["resourceName"], "people/c1"], personFields="names").execute()
    people.deleteContact(resourceName=made["resourceName"]).execute()
    out = {"names": names, "made": made["names"][0]["displayName"],
           "found": [r["person"]["emailAddresses"][0]["value"] for r in found],
           "changed": [changed["phoneNumbers"][0]["value"], changed["etag"] != made["etag"]],
           "kept": kept["resourceName"][:8], "batch": [r["httpStatusCode"] for r in batch["responses"]]}
    out["no_mask"] = refused(people.get(resourceName=kept["resourceName"]))
    out["deleted"] = refused(people.get(resourceName=made["resourceName"], personFields="names"))
    return out


def chat():
    spaces = build("chat", "v1", credentials=Credentials(token="ya29.detour")).spaces()
    listed = spaces.list().execute()["spaces"]
    launch = next(s["name"] for s in listed if s["displayName"] == "Checkout v2 launch")
    texts, request = [], spaces.messages().list(parent=launch, pageSize=1)
    while request is not None:
        page = request.execute()
        texts += [m["text"] for m in page.get("messages", [])]
        request = spaces.messages().list_next(request, page)
    members = [m["member"]["displayName"] for m in spaces.members().list(parent=launch).execute()["memberships"]]
    sent = spaces.messages().create(parent=launch, body={"text": "The launch moves to Tuesday."}).execute()
    edited = spaces.messages().patch(name=sent["name"], updateMask="text",
                                     body={"text": "The launch moves to Wednesday."}).execute()
    made = spaces.create(body={"displayName": "Q1 hiring", "spaceType": "SPACE"}).execute()
    out = {"spaces": sorted(s["displayName"] for s in listed), "texts": texts, "members": len(members),
           "sent": [sent["sender"]["name"], sent["space"]["name"] == launch], "edited": edited["text"],
           "made": [made["name"].startswith("spaces/"), made["displayName"]]}
    out["missing"] = refused(spaces.messages().get(name=launch + "/messages/missing"))
    return out


print(json.dumps({check.__name__: check() for check in (tasks, docs, sheets, people, chat)}))
'''

EXPECTED = {"tasks": {"lists": ["Checkout v2 launch", "My Tasks"],
           "paged": ["Review the fix for ENG-5", "Sign off the checkout v2 spec"],
           "made": ["tasks#task", "needsAction"],
           "again": ["Book the launch review", "completed"],
           "list": ["tasks#taskList", "Q1 hiring"],
           "missing": [404, "notFound"],
           "clear": [501, "notImplemented"]},
 "docs": {"plan": "Owner: Sarah Smith",
          "title": "Launch review",
          "text": "Launch on Tuesday.\n\n",
          "replaced": 1,
          "missing": [404, "notFound"],
          "table": [501, "notImplemented"]},
 "sheets": {"range": "Tasks!A1:C1000",
            "owner": "Robert",
            "appended": ["Tasks!A1:C4", "Tasks!A5:C5"],
            "both": [[["Write launch notes", "Priya", "Not started"]], [[1200], [950]]],
            "made": ["Hiring plan", ["Sheet1"]],
            "sheet": ["Q1", 1],
            "unknown": [400, "invalid"],
            "merge": [501, "notImplemented"]},
 "people": {"names": ["John Doe", "Dana Lee", "Priya Patel", "Sarah Smith", "Robert Smith", "Yuki Tanaka"],
            "made": "Ola Berg",
            "found": ["ola@fjord.example"],
            "changed": ["+47 5550 1234", True],
            "kept": "people/c",
            "batch": [200, 404],
            "no_mask": [400, "invalid"],
            "deleted": [404, "notFound"]},
 "chat": {"spaces": ["Checkout v2 launch", "Engineering"],
          "texts": ["The launch is planned for Monday."],
          "members": 5,
          "sent": ["users/agent@example.com", True],
          "edited": "The launch moves to Wednesday.",
          "made": [True, "Q1 hiring"],
          "missing": [404, "notFound"]}}
HOSTS = {f"{name}.googleapis.com" for name in EXPECTED}
INSERTED = ["chat.chat_messages", "chat.chat_spaces", "docs.docs_documents", "people.people_contacts",
            "sheets.sheets_spreadsheets", "tasks.tasks_tasklists", "tasks.tasks_tasks"]


@pytest.mark.parametrize("backend", ISOLATING)
def test_googles_client_through_the_proxy_on_the_five_generated_google_packs(live_stack, backend):
    result = run_official_client(live_stack, "acme", AGENT, EXPECTED, HOSTS, INSERTED, backend,
                                 frozenset({"sheets.sheets_values"}))
    inserted = {row["__table__"]: row for row in result.diff.inserts}
    assert (inserted["tasks.tasks_tasks"]["status"], inserted["chat.chat_messages"]["text"],
            inserted["people.people_contacts"]["names"][0]["displayName"]) == \
        ("completed", "The launch moves to Wednesday.", "Kari Nordmann")  # as they ended
