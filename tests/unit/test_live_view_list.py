"""The live view's list of environments: newest first, each with its date (a deleted one's from
its first record). tests/e2e/test_live_view.py sees the page open on the newest."""

import time

from fastapi.testclient import TestClient

from detour.apps.server import create_app
from detour_core.audit import AuditRecord, AuditWriter, iso
from detour_core.paths import StatePaths
from mock_services.store import EnvironmentStore


def test_environments_are_listed_newest_first_with_dates(tmp_path):
    state = StatePaths(tmp_path / "home").ensure()
    gone_at = time.time() - 3600
    writer = AuditWriter(state.audit_dir)
    writer.write(AuditRecord(ts=iso(gone_at), env_id="gone", client="c", mode="regular", method="GET",
                             scheme="https", host="slack.com", port=443, path="/api/api.test", decision="routed",
                             duration_ms=1, request_bytes=0, response_bytes=0))
    writer.close()
    store = EnvironmentStore(state)
    older = store.create("slack_default", env_id="zz-older")
    newer = store.create("slack_default", env_id="aa-newer")
    with TestClient(create_app(state, api_auth=False)) as client:
        listed = client.get("/api/platform/audit/environments").json()
    assert [(e["env_id"], e["live"]) for e in listed] == [("aa-newer", True), ("zz-older", True), ("gone", False)]
    assert [e["created_at"] for e in listed[:2]] == [newer.created_at, older.created_at]
    assert abs(listed[2]["created_at"] - gone_at) < 1

