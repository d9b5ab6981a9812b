"""The rules Zendesk's overrides add (mock_services/zendesk/overrides.py, search.py), in
process: tickets numbered per account with their first comment, an update's `ticket.comment`
as one more comment, the new/open/closed rules, the search language, Basic auth's email/token,
paths with and without `.json`, and Zendesk's error shape."""

from __future__ import annotations

import base64

import pytest
from fastapi.testclient import TestClient

from detour.apps.server import create_app
from detour_core.paths import StatePaths
from mock_services.store import EnvironmentStore
from mock_services.zendesk.build_seed import number


def basic(login: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{login}:secret".encode()).decode(),
            "Host": "acme.zendesk.com"}


AGENT, YUKI = basic("agent@example.com/token"), basic("yuki@example.com/token")


@pytest.fixture
def zendesk(tmp_path):
    state = StatePaths(tmp_path).ensure()
    client = TestClient(create_app(state, api_auth=False), raise_server_exceptions=False)
    env = EnvironmentStore(state).create("zendesk_default").env_id
    return client, f"/api/env/{env}/services/zendesk/api/v2"


def test_a_ticket_is_numbered_with_its_first_comment_and_an_update_adds_one(zendesk):
    client, api = zendesk
    made = client.post(f"{api}/tickets.json", headers=YUKI, json={"ticket": {
        "subject": "VPN drops", "comment": {"body": "Every hour", "public": False},
        "assignee_id": number("yuki@example.com")}})
    assert made.status_code == 201
    ticket = made.json()["ticket"]
    assert (ticket["id"], ticket["status"], ticket["description"], ticket["submitter_id"]) == \
        (5, "open", "Every hour", number("yuki@example.com"))  # assigned, so open; Basic auth names Yuki
    assert made.json()["audit"]["events"][0]["type"] == "Comment" and "comment" not in ticket
    updated = client.put(f"{api}/tickets/5", headers=AGENT, json={"ticket": {"comment": {"body": "Fixed"},
                                                                             "status": "solved"}}).json()
    assert updated["ticket"]["status"] == "solved"
    assert [e["field_name"] for e in updated["audit"]["events"][1:]] == ["status"]
    comments = client.get(f"{api}/tickets/5/comments.json", headers=AGENT).json()["comments"]
    assert [(c["body"], c["public"], c["author_id"]) for c in comments] == \
        [("Every hour", False, number("yuki@example.com")), ("Fixed", True, number("agent@example.com"))]


def test_refused_records_answer_record_invalid_and_missing_ones_record_not_found(zendesk):
    client, api = zendesk
    blank = client.post(f"{api}/tickets.json", headers=AGENT, json={"ticket": {"subject": "No words"}})
    assert (blank.status_code, blank.json()["error"]) == (422, "RecordInvalid")
    assert blank.json()["details"]["description"][0]["error"] == "BlankValue"
    client.put(f"{api}/tickets/4.json", headers=AGENT, json={"ticket": {"status": "closed"}})
    closed = client.put(f"{api}/tickets/4.json", headers=AGENT, json={"ticket": {"status": "open"}})
    assert (closed.status_code, closed.json()["details"]["status"][0]["error"]) == (422, "ClosedPreventsUpdate")
    missing = client.get(f"{api}/tickets/999.json", headers=AGENT)
    assert (missing.status_code, missing.json()) == (404, {"error": "RecordNotFound", "description": "Not found"})
    assert client.get(f"{api}/nowhere.json", headers=AGENT).json()["error"] == "InvalidEndpoint"


def test_a_requester_given_by_email_is_found_or_made_an_end_user(zendesk):
    client, api = zendesk
    new = client.post(f"{api}/tickets", headers=AGENT, json={"ticket": {
        "description": "Hello", "requester": {"name": "Dana Lee", "email": "dana@example.org"}}}).json()["ticket"]
    found = client.get(f"{api}/users/search.json", headers=AGENT, params={"query": "dana"}).json()["users"]
    assert [(u["id"], u["role"]) for u in found] == [(new["requester_id"], "end-user")]


@pytest.mark.parametrize(("query", "subjects"), [
    ("type:ticket status:open", ["Cannot log in after a password reset"]),
    ("type:ticket status<solved -status:new", ["Cannot log in after a password reset",
                                               "Invoice shows the wrong VAT number"]),
    ("type:ticket priority>=high requester:hank@globex.example.com", ["Cannot log in after a password reset",
                                                                      "Checkout page times out"]),
    ("type:ticket organization:Initech tags:billing", ["Invoice shows the wrong VAT number"]),
    ('"VAT number"', ["Invoice shows the wrong VAT number"]),
    ("type:ticket assignee:none", ["Export reports to CSV"]),
])
def test_search_reads_zendesks_query_language(zendesk, query, subjects):
    client, api = zendesk
    found = client.get(f"{api}/search.json", headers=AGENT, params={"query": query}).json()
    assert sorted(r["subject"] for r in found["results"]) == subjects
    assert found["count"] == len(subjects) and {r["result_type"] for r in found["results"]} <= {"ticket"}


def test_search_finds_people_and_says_what_it_cannot_read(zendesk):
    client, api = zendesk
    me = client.get(f"{api}/users/me.json", headers=YUKI).json()["user"]
    assert me["name"] == "Yuki Tanaka"
    mine = client.get(f"{api}/search.json", headers=basic("priya@example.com/token"),
                      params={"query": "type:ticket assignee:me"}).json()["results"]
    assert [t["id"] for t in mine] == [1]
    users = client.get(f"{api}/search", headers=AGENT, params={"query": "type:user role:end-user"}).json()
    assert sorted(u["name"] for u in users["results"]) == ["Hank Scorpio", "Peter Gibbons"]
    assert client.get(f"{api}/search/count.json", headers=AGENT,
                      params={"query": "type:organization"}).json() == {"count": 2}
    unknown = client.get(f"{api}/search.json", headers=AGENT, params={"query": "type:ticket via:email"})
    assert (unknown.status_code, unknown.json()["error"]) == (400, "InvalidSearchQuery")
