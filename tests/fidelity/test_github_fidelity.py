"""The fidelity suite for GitHub: every state-backed read of the replica, called on a fresh
github_default environment, its answer checked against GitHub's OpenAPI description (the
required fields of the answer's schema, and of every object of a named schema it holds, as the
generated table keeps them). A score per family is printed; every read must conform."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import pytest
from fastapi.testclient import TestClient

from mock_services.app import create_replica_app
from mock_services.github.handlers import MODELED
from mock_services.github.router import SPEC
from mock_services.store import EnvironmentStore

RESULTS: dict[str, Counter] = defaultdict(Counter)
VALUES = {"owner": "acme", "repo": "api", "org": "acme", "username": "john-doe", "pull_number": "4",
          "issue_number": "1", "milestone_number": "1", "comment_id": "5001", "review_id": "8001",
          "branch": "main", "path": "app/main.py", "basehead": "main...feature/rate-limits", "tree_sha": "main",
          "tag": "v1.0.0", "release_id": "1", "hook_id": "1", "asset_id": "1",
          "team_slug": "platform"}
REFS = {"git/get-ref": "heads/main", "git/list-matching-refs": "heads", "repos/get-commit": "main"}
READS = [o for o in SPEC.operations if o.method == "GET" and o.short_id in MODELED and o.response]


def missing(value: Any, schema: str | None, path: str = "") -> list[str]:
    """The required fields the answer lacks, by their path in it."""
    if schema is None or value is None:
        return []
    if isinstance(value, list):
        return [m for i, item in enumerate(value[:3]) for m in missing(item, schema, f"{path}[{i}]")]
    return lacking(value, SPEC.schemas.get(schema.removesuffix("[]")), path)


def lacking(value: Any, shape: dict | None, path: str) -> list[str]:
    if isinstance(value, list):
        return [m for i, item in enumerate(value[:3]) for m in lacking(item, shape, f"{path}[{i}]")]
    if shape is None or not isinstance(value, dict):
        return []
    found = [f"{path}.{field}" for field in shape["required"] if field not in value]
    for field, inner in shape["objects"].items():
        found += missing(value.get(field), inner, f"{path}.{field}")
    for field, inner_shape in shape.get("inline", {}).items():
        found += lacking(value.get(field), inner_shape, f"{path}.{field}")
    return found


@pytest.fixture(scope="module")
def github(tmp_path_factory):
    from detour_core.paths import StatePaths
    state = StatePaths(tmp_path_factory.mktemp("github") / "home").ensure()
    store = EnvironmentStore(state)
    env = store.create("github_default").env_id
    token = store.credentials(env).tokens["2"]  # John, acme's admin (webhooks are for admins)
    client = TestClient(create_replica_app(state))

    def call(method: str, path: str, headers: dict | None = None, **kwargs):
        return client.request(method, f"/api/env/{env}/services/github/{path}",
                              headers={"Authorization": f"token {token}", **(headers or {})}, **kwargs)
    call("POST", "repos/acme/api/releases", json={"tag_name": "v1.0.0"})
    call("POST", "repos/acme/api/hooks", json={"config": {"url": "https://hooks.example.test/"}})
    call("PUT", "repos/acme/api/branches/main/protection", json={
        "required_status_checks": None, "enforce_admins": False, "restrictions": None,
        "required_pull_request_reviews": {"required_approving_review_count": 1}})
    call("POST", "orgs/acme/teams", json={"name": "Platform"})
    call("PUT", "orgs/acme/teams/platform/repos/acme/api", json={"permission": "push"})
    call("POST", "repos/acme/api/releases/1/assets", params={"name": "api.tar"}, content=b"tar",
         headers={"Content-Type": "application/x-tar"})
    main = call("GET", "repos/acme/api/branches/main").json()["commit"]
    VALUES.update(commit_sha=main["sha"], file_sha=call("GET", "repos/acme/api/contents/README.md").json()["sha"])
    return call


@pytest.mark.parametrize("operation", READS, ids=lambda o: o.short_id)
def test_every_state_backed_read_answers_with_githubs_required_fields(github, operation):
    values = {**VALUES, "ref": REFS.get(operation.short_id, "main")}
    path = operation.path
    for name in operation.parameters:
        path = path.replace("{" + name + "}", values.get(name, name))
    answer = github("GET", path)
    family = operation.short_id.split("/")[0]
    assert answer.status_code == 200, (path, answer.text[:300])
    lacking = missing(answer.json(), operation.response)
    RESULTS[family]["conform" if not lacking else "differ"] += 1
    assert not lacking, lacking


def teardown_module() -> None:
    for family, counts in sorted(RESULTS.items()):
        total = counts["conform"] + counts["differ"]
        print(f"github fidelity {family}: {counts['conform']}/{total}")
