"""Google's official Python client (google-api-python-client, with the People discovery document
it ships), run unmodified in a sandbox, reaches the environment's People (Contacts) replica (a
pack generated from that discovery document, mock_services/people) through the proxy: the user's
connections a page at a time (`list_next`), a contact created, found by search, updated by its
etag and field mask, and deleted; a request without the field mask Google requires is its 400 and
a deleted contact its 404; the diff shows the rows."""

from __future__ import annotations

import pytest

from tests.conftest import ISOLATING
from tests.e2e.official_clients import run_official_client

AGENT = r'''
import json
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
from googleapiclient.errors import HttpError

people = build("people", "v1", credentials=Credentials(token="ya29.detour")).people()
names, request = [], people.connections().list(resourceName="people/me", personFields="names,emailAddresses", pageSize=4)
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
people.deleteContact(resourceName=made["resourceName"]).execute()
out = {"names": names, "made": made["names"][0]["displayName"],
       "found": [r["person"]["emailAddresses"][0]["value"] for r in found],
       "changed": [changed["phoneNumbers"][0]["value"], changed["etag"] != made["etag"]], "kept": kept["resourceName"][:8]}
for name, call in (("no_mask", people.get(resourceName=kept["resourceName"])),
                   ("deleted", people.get(resourceName=made["resourceName"], personFields="names"))):
    try:
        call.execute()
    except HttpError as e:
        out[name] = [e.resp.status, e.error_details[0]["reason"]]
print(json.dumps(out))
'''

EXPECTED = {"names": ["John Doe", "Dana Lee", "Priya Patel", "Sarah Smith", "Robert Smith", "Yuki Tanaka"],
            "made": "Ola Berg", "found": ["ola@fjord.example"], "changed": ["+47 5550 1234", True],
            "kept": "people/c", "no_mask": [400, "invalid"], "deleted": [404, "notFound"]}


@pytest.mark.parametrize("backend", ISOLATING)
def test_google_people_python_through_the_proxy(live_stack, backend):
    result = run_official_client(live_stack, "people_default", AGENT, EXPECTED, {"people.googleapis.com"},
                                 ["people_contacts"], backend)
    assert result.diff.inserts[0]["names"][0]["displayName"] == "Kari Nordmann"
