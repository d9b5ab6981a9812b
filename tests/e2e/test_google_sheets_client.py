"""Google's official Python client (google-api-python-client, with the Sheets discovery document
it ships), run unmodified in a sandbox, reaches the environment's Sheets replica (a pack
generated from that discovery document, mock_services/sheets) through the proxy: a seeded
sheet's values read in A1 notation, a row appended after its table, a cell updated as a user
enters it (text that reads as a number is one), two ranges read at once, a spreadsheet created
and a sheet added; an unknown sheet is Google's 400 and a request kind the replica does not
apply says so in Google's shape (501); the diff shows the rows."""

from __future__ import annotations

import pytest

from tests.conftest import ISOLATING
from tests.e2e.official_clients import run_official_client

AGENT = r'''
import json
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
from googleapiclient.errors import HttpError

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
out = {"range": read["range"], "owner": read["values"][1][1], "appended": [added["tableRange"], added["updates"]["updatedRange"]],
       "both": [r["values"] for r in both], "made": [made["properties"]["title"], [s["properties"]["title"] for s in made["sheets"]]],
       "sheet": [sheet["title"], sheet["index"]]}
for name, call in (("unknown", values.values().get(spreadsheetId=TRACKER, range="Nope!A1")),
                   ("merge", values.batchUpdate(spreadsheetId=TRACKER, body={"requests": [{"mergeCells": {}}]}))):
    try:
        call.execute()
    except HttpError as e:
        out[name] = e.resp.status
print(json.dumps(out))
'''

EXPECTED = {"range": "Tasks!A1:C1000", "owner": "Robert", "appended": ["Tasks!A1:C4", "Tasks!A5:C5"],
            "both": [[["Write launch notes", "Priya", "Not started"]], [[1200], [950]]],
            "made": ["Hiring plan", ["Sheet1"]], "sheet": ["Q1", 1], "unknown": 400, "merge": 501}


@pytest.mark.parametrize("backend", ISOLATING)
def test_google_sheets_python_through_the_proxy(live_stack, backend):
    run_official_client(live_stack, "sheets_default", AGENT, EXPECTED, {"sheets.googleapis.com"},
                        ["sheets_spreadsheets"], backend, updated=frozenset({"sheets_values"}))
