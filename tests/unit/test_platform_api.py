import pytest
from fastapi.testclient import TestClient

from detour.credentials import api_key
from mock_services.app import create_app


@pytest.fixture
def client(state) -> TestClient:
    return TestClient(create_app(state), headers={"X-API-Key": api_key(state)})


def test_the_platform_api_wants_its_key_but_health_does_not(state):
    anonymous = TestClient(create_app(state))
    assert anonymous.get("/api/platform/health").status_code == 200
    for path in ("/api/platform/environments", "/api/platform/templates", "/api/platform/testSuites"):
        refused = anonymous.get(path, headers={"X-API-Key": "wrong"})
        assert (refused.status_code, refused.json()["detail"]) == (401, "missing or wrong X-API-Key "
                                                                     "(`detour api-key` prints the key)")
    assert anonymous.get("/api/platform/environments", headers={"X-API-Key": api_key(state)}).status_code == 200
    assert TestClient(create_app(state, api_auth=False)).get("/api/platform/environments").status_code == 200


def test_environment_lifecycle(client):
    assert [t["name"] for t in client.get("/api/platform/templates").json()["templates"]] == [
        "linear_default", "linear_expanded", "slack_bench_default", "slack_bench_v2", "slack_default"]
    created = client.post("/api/platform/environments", json={"template": "slack_default", "env_id": "e1"})
    assert created.status_code == 201 and created.json()["service"] == "slack"
    assert client.get("/api/platform/environments").json()["count"] == 1
    assert client.get("/api/platform/environments/e1").json()["template"] == "slack_default"
    assert client.get("/api/platform/environments/e1/diff").json() == {"inserts": [], "updates": [], "deletes": []}
    assert client.delete("/api/platform/environments/e1").status_code == 204
    assert client.get("/api/platform/environments").json() == {"data": [], "count": 0}


@pytest.mark.parametrize("method, path, body, status, detail", [
    ("post", "/api/platform/environments", {"template": "nope"}, 400, "unknown template"),
    ("post", "/api/platform/environments", {"template": "slack_default", "env_id": "bad id"}, 400, "invalid environment id"),
    ("post", "/api/platform/environments", {"template": "slack_default", "env_id": "taken"}, 409, "exists already"),
    ("get", "/api/platform/environments/missing", None, 404, "no environment"),
    ("get", "/api/platform/environments/missing/diff", None, 404, "no environment"),
    ("delete", "/api/platform/environments/missing", None, 404, "no environment"),
])
def test_errors_map_to_http_statuses(client, method, path, body, status, detail):
    client.post("/api/platform/environments", json={"template": "linear_default", "env_id": "taken"})
    response = client.request(method, path, json=body)
    assert response.status_code == status
    assert detail in response.json()["detail"]
    assert client.get("/api/platform/environments/taken").json()["template"] == "linear_default"
