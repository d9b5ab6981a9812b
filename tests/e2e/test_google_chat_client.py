"""Google's official Python client (google-api-python-client, with the Chat discovery document it
ships), run unmodified in a sandbox, reaches the environment's Chat replica (a pack generated from
that discovery document, mock_services/chat) through the proxy: spaces listed, a space's messages
a page at a time (`list_next`) and its members, a message posted (its sender the acting person)
and edited by its update mask, a space made; a missing message is Google's 404; the diff shows them."""

from __future__ import annotations

import pytest

from tests.conftest import ISOLATING
from tests.e2e.official_clients import run_official_client

AGENT = r'''
import json
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
from googleapiclient.errors import HttpError

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
edited = spaces.messages().patch(name=sent["name"], updateMask="text", body={"text": "The launch moves to Wednesday."}).execute()
made = spaces.create(body={"displayName": "Q1 hiring", "spaceType": "SPACE"}).execute()
out = {"spaces": sorted(s["displayName"] for s in listed), "texts": texts, "members": len(members),
       "sent": [sent["sender"]["name"], sent["space"]["name"] == launch], "edited": edited["text"],
       "made": [made["name"].startswith("spaces/"), made["displayName"]]}
try:
    spaces.messages().get(name=launch + "/messages/missing").execute()
except HttpError as e:
    out["missing"] = [e.resp.status, e.error_details[0]["reason"]]
print(json.dumps(out))
'''

EXPECTED = {"spaces": ["Checkout v2 launch", "Engineering"], "texts": ["The launch is planned for Monday."],
            "members": 5, "sent": ["users/agent@example.com", True], "edited": "The launch moves to Wednesday.",
            "made": [True, "Q1 hiring"], "missing": [404, "notFound"]}


@pytest.mark.parametrize("backend", ISOLATING)
def test_google_chat_python_through_the_proxy(live_stack, backend):
    result = run_official_client(live_stack, "chat_default", AGENT, EXPECTED, {"chat.googleapis.com"},
                                 ["chat_messages", "chat_spaces"], backend)
    sent = next(row for row in result.diff.inserts if row["__table__"] == "chat_messages")
    assert sent["text"] == "The launch moves to Wednesday."  # as it ended
