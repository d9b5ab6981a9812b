import pytest
from fastapi.testclient import TestClient

from detour_core.credentials import api_key
from detour.apps.server import create_app


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
    names = [t["name"] for t in client.get("/api/platform/templates").json()["templates"]]
    assert names == sorted(names) and {"acme", "box_default", "calendar_default", "linear_default", "linear_expanded",
                                       "slack_bench_default", "slack_bench_v2", "slack_default"} <= set(names)
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


def test_an_environment_with_a_time_to_live_is_gone_after_it(client, state, monkeypatch):
    import time as clock
    from mock_services.store import EnvironmentStore

    short = client.post("/api/platform/initEnv", json={"templateName": "slack_default", "ttlSeconds": 60}).json()
    kept = client.post("/api/platform/initEnv", json={"templateName": "slack_default"}).json()
    assert short["expiresAt"] is not None and kept["expiresAt"] is None
    posted = client.post(f"/api/env/{short['environmentId']}/services/slack/auth.test",
                         headers={"Authorization": "Bearer xoxb-1"})
    assert posted.json()["ok"] is True
    later = clock.time() + 61
    monkeypatch.setattr(clock, "time", lambda: later)
    store = EnvironmentStore(state)
    assert store.expire() == [short["environmentId"]]  # the server's sweep
    assert not (state.environments_dir / f"{short['environmentId']}.sqlite").exists()
    assert client.post("/api/platform/startRun", json={"envId": short["environmentId"]}).status_code == 404
    assert [e.env_id for e in store.list()] == [kept["environmentId"]]
    refused = client.post("/api/platform/initEnv", json={"templateName": "slack_default", "ttlSeconds": -5})
    assert (refused.status_code, refused.json()["detail"]) == (
        400, "a time to live is a positive number of seconds, not -5")


def test_an_expired_environment_is_refused_on_first_use(state, monkeypatch):
    import time as clock
    from detour_core.errors import EnvironmentNotFound
    from mock_services.store import EnvironmentStore

    store = EnvironmentStore(state)
    env = store.create("slack_default", ttl_s=5).env_id
    assert store.get(env).expires_at is not None
    later = clock.time() + 6
    monkeypatch.setattr(clock, "time", lambda: later)
    with pytest.raises(EnvironmentNotFound, match="expired"):
        store.diff(env)
    assert store.list() == []


def test_the_live_views_records_api(client, state):
    from detour_core.audit import AuditRecord, AuditWriter
    AuditWriter(state.audit_dir).write(AuditRecord(ts="2026-11-23T00:00:00.000Z", env_id="e1", client="c", mode="regular",
                                                   method="GET", scheme="https", host="slack.com", port=443, path="/a",
                                                   decision="routed", duration_ms=1, request_bytes=0, response_bytes=0))
    page = client.get("/api/platform/audit/records", params={"env": "e1"}).json()
    assert [r["path"] for r in page["records"]] == ["/a"] and page["after"] != "0:0"
    assert client.get("/api/platform/audit/records", params={"env": "e1", "after": page["after"]}).json()["records"] == []
    found = client.get(f"/api/platform/audit/records/{page['records'][0]['id']}", params={"env": "e1"})
    assert found.json()["host"] == "slack.com"
    assert client.get("/api/platform/audit/records/nope", params={"env": "e1"}).status_code == 404
    bad = client.get("/api/platform/audit/records", params={"after": "later"})
    assert (bad.status_code, bad.json()["detail"]) == (400, "after is segment:offset, not 'later'")
    gone = {"env_id": "e1", "live": False, "created_at": 1795392000.0}  # a deleted one: dated by its first record
    assert client.get("/api/platform/audit/environments").json() == [gone]
