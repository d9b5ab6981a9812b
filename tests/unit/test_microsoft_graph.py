"""The Microsoft 365 packs' parts (#53): Graph's CSDL converted for a pack's paths, routes that
share a host by path prefixes with a `*` segment, tables a rename merges, OData's `$filter`, and
the packs in process (the token endpoint, `/me`, user principal names, sendMail's delivery)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from detour.apps.server import create_app
from detour_core import registry
from detour_core.hosts import path_matches
from detour_core.paths import StatePaths
from mock_services.rest.graph import matches
from mock_services.rest.openapi.__main__ import renamed
from mock_services.rest.openapi.from_csdl import Csdl, convert
from mock_services.store import EnvironmentStore
from tests.unit.openapi_properties import property_test

CSDL = textwrap.dedent("""\
    <?xml version="1.0" encoding="utf-8"?>
    <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
    <Schema Namespace="microsoft.graph" Alias="graph" xmlns="http://docs.oasis-open.org/odata/ns/edm">
      <EnumType Name="importance"><Member Name="low" Value="0"/><Member Name="high" Value="2"/></EnumType>
      <ComplexType Name="recipient"><Property Name="address" Type="Edm.String"/></ComplexType>
      <EntityType Name="entity" Abstract="true"><Key><PropertyRef Name="id"/></Key>
        <Property Name="id" Type="Edm.String" Nullable="false"/></EntityType>
      <EntityType Name="message" BaseType="graph.entity">
        <Property Name="subject" Type="Edm.String"/><Property Name="importance" Type="graph.importance"/>
        <Property Name="toRecipients" Type="Collection(graph.recipient)"/></EntityType>
      <EntityType Name="user" BaseType="graph.entity">
        <NavigationProperty Name="messages" Type="Collection(graph.message)" ContainsTarget="true"/></EntityType>
      <Action Name="reply" IsBound="true"><Parameter Name="bindingParameter" Type="graph.message"/>
        <Parameter Name="Comment" Type="Edm.String"/></Action>
      <EntityContainer Name="GraphService"><EntitySet Name="users" EntityType="microsoft.graph.user"/>
      </EntityContainer>
    </Schema></edmx:DataServices></edmx:Edmx>""")
GRAPH = ("outlook_mail", "outlook_calendar", "teams", "onedrive")


def test_a_packs_paths_become_graphs_openapi_operations_with_every_type_they_reach(tmp_path: Path):
    (tmp_path / "graph.csdl").write_text(CSDL)
    lines = ["get,post /users/{user-id}/messages", "get,patch /users/{user-id}/messages/{message-id}",
             "post /users/{user-id}/messages/{message-id}/reply"]
    document = convert(Csdl(tmp_path / "graph.csdl"), lines, "Graph")
    ids = {p: {m: o["operationId"] for m, o in ops.items()} for p, ops in document["paths"].items()}
    assert ids == {"/v1.0/users/{user_id}/messages": {"get": "user_ListMessage", "post": "user_CreateMessage"},
                   "/v1.0/users/{user_id}/messages/{message_id}": {"get": "user_GetMessage",
                                                                   "patch": "user_UpdateMessage"},
                   "/v1.0/users/{user_id}/messages/{message_id}/reply": {"post": "user.message_reply"}}
    listed = document["paths"]["/v1.0/users/{user_id}/messages"]["get"]
    assert listed["responses"]["200"]["content"]["application/json"]["schema"]["properties"]["value"]["items"] == \
        {"$ref": "#/components/schemas/microsoft.graph.message"}
    assert "$filter" in {p["name"] for p in listed["parameters"]}
    message = document["components"]["schemas"]["microsoft.graph.message"]
    assert list(message["properties"]) == ["id", "subject", "importance", "toRecipients", "@odata.type"]
    assert set(document["components"]["schemas"]) == {"microsoft.graph.message", "microsoft.graph.importance",
                                                      "microsoft.graph.recipient",
                                                      "microsoft.graph.ODataErrors.ODataError"}
    reply = document["paths"]["/v1.0/users/{user_id}/messages/{message_id}/reply"]["post"]
    assert list(reply["requestBody"]["content"]["application/json"]["schema"]["properties"]) == ["Comment"]
    with pytest.raises(ValueError, match="user has no events"):
        convert(Csdl(tmp_path / "graph.csdl"), ["get /users/{user-id}/events"], "Graph")


def test_a_star_segment_in_a_route_prefix_stands_for_any_one_segment():
    assert path_matches("/v1.0/users/john@example.com/messages/AAMk", "/v1.0/users/*/messages")
    assert not path_matches("/v1.0/users/john/events", "/v1.0/users/*/messages")
    assert not path_matches("/v1.0/users/messages", "/v1.0/users/*/messages")
    assert path_matches("/v1.0/me/drive", "/v1.0/me")


def test_a_rename_to_a_table_named_before_merges_it_and_leaves_its_operations_to_the_overrides():
    model = {"resources": {
        "m_folder_messages": {"table": "m_folder_messages", "collection": "/u/{u}/f/{f}/messages", "parent": None},
        "m_messages": {"table": "m_messages", "collection": "/u/{u}/messages", "parent": None}},
        "operations": {"folder_List": {"action": "list", "resource": "m_folder_messages"},
                       "List": {"action": "list", "resource": "m_messages"}}}
    out = renamed(model, {"m_folder_messages": "m_messages"})
    assert out["resources"]["m_messages"]["collection"] == "/u/{u}/messages" and len(out["resources"]) == 1
    assert out["operations"] == {"folder_List": {"action": None, "resource": None},
                                 "List": {"action": "list", "resource": "m_messages"}}


def test_odata_filters_read_as_graph_reads_them():
    row = {"isRead": False, "subject": "Checkout v2 launch", "from": {"emailAddress": {"address": "j@x.com"}},
           "receivedDateTime": "2026-01-08T09:12:00Z"}
    assert matches("isRead eq false and contains(subject, 'LAUNCH')")(row)
    assert matches("from/emailAddress/address eq 'J@x.com'")(row)
    assert matches("receivedDateTime ge 2026-01-08T00:00:00Z")(row)
    assert not matches("isRead eq true or startswith(subject, 'Re:')")(row)


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    state = StatePaths(tmp_path_factory.mktemp("graph")).ensure()
    client = TestClient(create_app(state, api_auth=False), raise_server_exceptions=False)
    return client, {name: EnvironmentStore(state).create(f"{name}_default").env_id for name in GRAPH}


def test_the_token_endpoint_issues_the_secrets_user_a_token_graph_then_acts_as(graph):
    client, envs = graph
    base = f"/api/env/{envs['outlook_mail']}/services/outlook_mail"
    tenant = "8f4b2c1e-6d3a-4e5f-9a7b-0c1d2e3f4a5b"
    config = client.get(f"{base}/{tenant}/v2.0/.well-known/openid-configuration").json()
    assert config["token_endpoint"] == f"https://login.microsoftonline.com/{tenant}/oauth2/v2.0/token"
    refused = client.post(f"{base}/{tenant}/oauth2/v2.0/token", data={"grant_type": "nope"})
    assert refused.status_code == 400 and refused.json()["error"] == "unsupported_grant_type"
    token = client.post(f"{base}/{tenant}/oauth2/v2.0/token", data={
        "grant_type": "client_credentials", "client_id": "x", "client_secret": "x",
        "scope": "https://graph.microsoft.com/.default"}).json()["access_token"]
    me = client.get(f"{base}/v1.0/me", headers={"Authorization": f"Bearer {token}"}).json()
    assert me["userPrincipalName"] == "agent@example.com"
    missing = client.get(f"{base}/v1.0/users/nobody@example.com/messages")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "Request_ResourceNotFound"


def test_mail_sent_to_a_person_of_the_environment_lands_in_their_inbox(graph):
    client, envs = graph
    base = f"/api/env/{envs['outlook_mail']}/services/outlook_mail/v1.0"
    sent = client.post(f"{base}/me/sendMail", json={"message": {
        "subject": "Risks", "body": {"contentType": "Text", "content": "ENG-5"},
        "toRecipients": [{"emailAddress": {"address": "John@example.com"}}]}})
    assert sent.status_code == 204
    johns = client.get(f"{base}/users/john@example.com/mailFolders/inbox/messages",
                       params={"$filter": "isRead eq false", "$select": "subject,body"}).json()["value"]
    assert [(m["subject"], m["body"]["contentType"]) for m in johns] == [("Risks", "text")]
    bad = client.post(f"{base}/me/sendMail", json={"message": {"subject": 3}})
    assert bad.status_code == 400 and set(bad.json()["error"]) == {"code", "message", "innerError"}


@pytest.mark.parametrize("name", GRAPH)
def test_each_graph_pack_routes_at_graphs_host_by_its_prefixes(name):
    found = {"outlook_mail": "/v1.0/users/john@example.com/mailFolders/inbox/messages",
             "outlook_calendar": "/v1.0/me/calendarView", "teams": "/v1.0/users/x/joinedTeams",
             "onedrive": "/v1.0/drives/b!x/items/root:/a.txt:/content"}[name]
    assert registry.services_for("graph.microsoft.com", found) == [name]
    assert name in registry.services_for("login.microsoftonline.com", "/common/oauth2/v2.0/token")
    assert json.loads((Path(registry.pack(name).templates).parent / "spec" / "pack.json").read_text())[
        "credentials"] == "mock_services.rest.graph:credentials"


test_outlook_mail_answers_as_its_description_says = property_test("outlook_mail", examples=2, coverage=False)
test_outlook_calendar_answers_as_its_description_says = property_test("outlook_calendar", examples=2, coverage=False)
test_teams_answers_as_its_description_says = property_test("teams", examples=2, coverage=False)
test_onedrive_answers_as_its_description_says = property_test("onedrive", examples=2, coverage=False)
