"""HubSpot's official Python client (`hubspot-api-client`), run unmodified in a sandbox, reaches
the environment's HubSpot replica (a pack generated from HubSpot's OpenAPI descriptions of CRM
contacts, companies and deals) through the proxy: a contact made, read, updated and found by
search, the contacts listed with paging, a deal made, HubSpot's 404; the diff shows them."""

from __future__ import annotations

import pytest

from tests.conftest import ISOLATING
from tests.e2e.official_clients import run_official_client

AGENT = r'''
import json
from hubspot import HubSpot
from hubspot.crm.contacts import (ApiException, Filter, FilterGroup, PublicObjectSearchRequest,
                                  SimplePublicObjectInput, SimplePublicObjectInputForCreate)
from hubspot.crm.deals import SimplePublicObjectInputForCreate as NewDeal

client = HubSpot(access_token="pat-na1-detour")
made = client.crm.contacts.basic_api.create(
    SimplePublicObjectInputForCreate(properties={"email": "dana@example.org", "firstname": "Dana"}))
client.crm.contacts.basic_api.update(made.id, SimplePublicObjectInput(properties={"lastname": "Lee"}))
again = client.crm.contacts.basic_api.get_by_id(made.id, properties=["email", "firstname", "lastname"])
out = {"again": [again.properties["email"], again.properties["lastname"]]}
page = client.crm.contacts.basic_api.get_page(limit=2)
out["page"] = [len(page.results), page.paging.next.after if page.paging else None]
out["all"] = len(client.crm.contacts.get_all())
found = client.crm.contacts.search_api.do_search(PublicObjectSearchRequest(filter_groups=[FilterGroup(filters=[
    Filter(property_name="company", operator="EQ", value="Initech")])]))
out["initech"] = sorted(c.properties["email"] for c in found.results)
deal = client.crm.deals.basic_api.create(NewDeal(properties={"dealname": "Dana's pilot", "amount": "5000"}))
out["deal"] = client.crm.deals.basic_api.get_by_id(deal.id).properties["dealname"]
try:
    client.crm.contacts.basic_api.get_by_id("1")
except ApiException as e:
    out["missing"] = e.status
print(json.dumps(out))
'''

EXPECTED = {"again": ["dana@example.org", "Lee"], "page": [2, "2"], "all": 4,
            "initech": ["peter@initech.example.com", "samir@initech.example.com"], "deal": "Dana's pilot",
            "missing": 404}


@pytest.mark.parametrize("backend", ISOLATING)
def test_hubspot_python_through_the_proxy(live_stack, backend):
    """A contact made and changed in one run is one insert in the diff."""
    run_official_client(live_stack, "hubspot_default", AGENT, EXPECTED, {"api.hubapi.com"},
                        ["hubspot_crm_objects_0_3", "hubspot_crm_objects_contacts"], backend)
