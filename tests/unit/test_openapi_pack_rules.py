"""The rules the generated packs' overrides add, in process: Stripe's payment intent and invoice
states, Jira's workflow and JQL, HubSpot's search, Twilio's record-never-send; each refused
move answers in the vendor's error shape."""

from __future__ import annotations

import base64

import pytest
from fastapi.testclient import TestClient

from detour.apps.server import create_app
from detour_core.paths import StatePaths
from mock_services.store import EnvironmentStore
from mock_services.twilio.build_seed import ACCOUNT


@pytest.fixture(scope="module")
def replica(tmp_path_factory):
    state = StatePaths(tmp_path_factory.mktemp("pack-rules")).ensure()
    client = TestClient(create_app(state, api_auth=False), raise_server_exceptions=False)
    store = EnvironmentStore(state)

    def base(template: str, service: str) -> str:
        return f"/api/env/{store.create(template).env_id}/services/{service}"
    return client, base


def test_stripe_payment_intents_move_through_their_states(replica):
    client, base = replica
    root = base("stripe_default", "stripe")
    stripe = root + "/v1/payment_intents"
    manual = client.post(stripe, data={"amount": "900", "currency": "usd", "payment_method": "pm_card_visa",
                                       "capture_method": "manual", "confirm": "true"}).json()
    assert manual["status"] == "requires_capture"
    captured = client.post(f"{stripe}/{manual['id']}/capture").json()
    assert (captured["status"], captured["amount_received"]) == ("succeeded", 900)
    refused = client.post(f"{stripe}/{manual['id']}/cancel")
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "payment_intent_unexpected_state"
    waiting = client.post(stripe, data={"amount": "100", "currency": "usd"}).json()
    assert waiting["status"] == "requires_payment_method"
    unpaid = client.post(f"{stripe}/{waiting['id']}/confirm")
    assert unpaid.status_code == 400 and unpaid.json()["error"]["param"] == "payment_method"
    assert client.post(f"{stripe}/{waiting['id']}/cancel").json()["status"] == "canceled"
    not_paid = client.post(root + "/v1/refunds", data={"payment_intent": waiting["id"]})
    assert not_paid.json()["error"]["code"] == "charge_not_refundable"


def test_stripe_invoices_are_finalized_before_they_are_paid(replica):
    client, base = replica
    invoices = base("stripe_default", "stripe") + "/v1/invoices"
    draft = client.get(invoices).json()["data"][0]
    assert draft["status"] == "draft"
    assert client.post(f"{invoices}/{draft['id']}/pay").json()["error"]["code"] == "invoice_unexpected_state"
    assert client.post(f"{invoices}/{draft['id']}/finalize").json()["status"] == "open"
    assert client.post(f"{invoices}/{draft['id']}/pay").json()["status"] == "paid"


def test_jira_transitions_and_jql(replica):
    client, base = replica
    jira = base("jira_default", "jira") + "/rest/api/3"
    headers = {"Authorization": "Basic " + base64.b64encode(b"yuki@example.com:token").decode()}
    offered = client.get(f"{jira}/issue/ACME-3/transitions", headers=headers).json()["transitions"]
    assert [t["name"] for t in offered] == ["In Progress", "Done"]  # not the status it is in
    assert client.post(f"{jira}/issue/ACME-3/transitions", json={"transition": {"id": "11"}}).status_code == 400
    assert client.post(f"{jira}/issue/ACME-3/transitions", json={"transition": {"id": "31"}}).status_code == 204

    def keys(jql: str) -> list[str]:
        return [i["key"] for i in client.get(f"{jira}/search", params={"jql": jql}, headers=headers).json()["issues"]]
    assert keys("assignee = currentUser()") == ["ACME-3"]
    assert keys('statusCategory = Done ORDER BY key ASC') == ["ACME-3", "OPS-1"]
    assert keys('project = ACME AND text ~ "onboarding"') == ["ACME-2"]
    assert keys("labels IS EMPTY") == ["OPS-1"]
    assert keys('key in (ACME-1, OPS-1) ORDER BY key DESC') == ["OPS-1", "ACME-1"]
    refused = client.get(f"{jira}/search", params={"jql": "project = ACME OR project = OPS"})
    assert refused.status_code == 400 and "OR is not modeled" in refused.json()["errorMessages"][0]


def test_hubspot_search_and_twilio_recording(replica):
    client, base = replica
    contacts = base("hubspot_default", "hubspot") + "/crm/v3/objects/contacts"
    found = client.post(f"{contacts}/search", json={"filterGroups": [
        {"filters": [{"propertyName": "lifecyclestage", "operator": "EQ", "value": "lead"}]},
        {"filters": [{"propertyName": "email", "operator": "CONTAINS_TOKEN", "value": "*globex*"}]}]}).json()
    assert sorted(c["properties"]["firstname"] for c in found["results"]) == ["Hank", "Peter"]
    odd = client.post(f"{contacts}/search", json={"filterGroups": [
        {"filters": [{"propertyName": "email", "operator": "BETWEEN", "value": "a"}]}]})
    assert odd.status_code == 400 and odd.json()["correlationId"]
    twilio = base("twilio_default", "twilio") + f"/2010-04-01/Accounts/{ACCOUNT}/Messages.json"
    sent = client.post(twilio, data={"To": "+15550100003", "From": "+15550100000", "Body": "hi"}).json()
    assert (sent["status"], sent["direction"], sent["to"]) == ("queued", "outbound-api", "+15550100003")
    assert client.post(twilio, data={"From": "+15550100000"}).json()["message"] == "Missing required param: To."
    first = client.get(twilio, params={"To": "+15550100003", "PageSize": 1}).json()
    root = twilio.removesuffix(f"/2010-04-01/Accounts/{ACCOUNT}/Messages.json")
    second = client.get(root + first["next_page_uri"]).json()  # the filter and where to go on, as Twilio's clients read them
    assert (len(first["messages"]), [m["sid"] for m in second["messages"]], second.get("next_page_uri")) == \
        (1, [sent["sid"]], None)


def test_what_a_pack_leaves_out_answers_in_the_vendors_shape_and_says_so(replica):
    client, base = replica
    root = base("stripe_default", "stripe")
    unknown = client.get(root + "/v1/subscription_schedules")  # Stripe has it; the trimmed description not
    assert unknown.status_code == 404
    assert "detour's stripe replica has no operation at this path" in unknown.json()["error"]["message"]
    jira = client.get(base("jira_default", "jira") + "/rest/api/3/dashboard")
    assert jira.status_code == 404 and "detour's jira replica" in " ".join(jira.json()["errorMessages"])
