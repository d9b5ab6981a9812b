"""Google's official Python client (google-api-python-client, with the Tasks discovery document
it ships), run unmodified in a sandbox, reaches the environment's Tasks replica (a pack generated
from that discovery document, mock_services/tasks) through the proxy: lists read a page at a time
(`list_next` follows nextPageToken), a task inserted, completed and read back, a list made; a
missing task is Google's 404 and an operation the replica does not serve says so in Google's
shape (501); the diff shows the rows."""

from __future__ import annotations

import pytest

from tests.conftest import ISOLATING
from tests.e2e.official_clients import run_official_client

AGENT = r'''
import json
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
from googleapiclient.errors import HttpError

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
for name, call in (("missing", service.tasks().get(tasklist=launch, task="missing")),
                   ("clear", service.tasks().clear(tasklist=launch))):
    try:
        call.execute()
    except HttpError as e:
        out[name] = [e.resp.status, e.error_details[0]["reason"]]
print(json.dumps(out))
'''

EXPECTED = {"lists": ["Checkout v2 launch", "My Tasks"],
            "paged": ["Review the fix for ENG-5", "Sign off the checkout v2 spec"],
            "made": ["tasks#task", "needsAction"], "again": ["Book the launch review", "completed"],
            "list": ["tasks#taskList", "Q1 hiring"], "missing": [404, "notFound"], "clear": [501, "notImplemented"]}


@pytest.mark.parametrize("backend", ISOLATING)
def test_google_tasks_python_through_the_proxy(live_stack, backend):
    result = run_official_client(live_stack, "tasks_default", AGENT, EXPECTED, {"tasks.googleapis.com"},
                                 ["tasks_tasklists", "tasks_tasks"], backend)
    made = next(row for row in result.diff.inserts if row["__table__"] == "tasks_tasks")
    assert (made["title"], made["status"]) == ("Book the launch review", "completed")  # as it ended
