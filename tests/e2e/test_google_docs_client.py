"""Google's official Python client (google-api-python-client, with the Docs discovery document
it ships), run unmodified in a sandbox, reaches the environment's Docs replica (a pack generated
from that discovery document, mock_services/docs) through the proxy: a seeded document read as
text from its body's paragraphs, a document created and written with batchUpdate (insertText,
replaceAllText's count, deleteContentRange) and read back; a missing document is Google's 404 and
a request kind the replica does not apply says so in Google's shape (501); the diff shows it."""

from __future__ import annotations

import pytest

from tests.conftest import ISOLATING
from tests.e2e.official_clients import run_official_client

AGENT = r'''
import json
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
from googleapiclient.errors import HttpError

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
for name, call in (("missing", docs.documents().get(documentId="nope")),
                   ("table", docs.documents().batchUpdate(documentId=made["documentId"], body={
                       "requests": [{"insertTable": {"rows": 1, "columns": 1, "endOfSegmentLocation": {}}}]}))):
    try:
        call.execute()
    except HttpError as e:
        out[name] = [e.resp.status, e.error_details[0]["reason"]]
print(json.dumps(out))
'''

EXPECTED = {"plan": "Owner: Sarah Smith", "title": "Launch review", "text": "Launch on Tuesday.\n\n",
            "replaced": 1, "missing": [404, "notFound"], "table": [501, "notImplemented"]}


@pytest.mark.parametrize("backend", ISOLATING)
def test_google_docs_python_through_the_proxy(live_stack, backend):
    result = run_official_client(live_stack, "docs_default", AGENT, EXPECTED, {"docs.googleapis.com"},
                                 ["docs_documents"], backend)
    assert result.diff.inserts[0]["title"] == "Launch review"
