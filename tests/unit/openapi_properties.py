"""A generated pack checked against its own description with schemathesis, in process (the
replica app on a TestClient, no network): requests generated from every modeled operation of
the trimmed description must never get a 5xx, every answer must match the description
(status, content type, body schema), and a resource a create answered must read back."""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import unquote, urlsplit

import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, assume, settings
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance, \
    status_code_conformance
from schemathesis.checks import not_a_server_error

from detour.apps.server import create_app
from detour_core.paths import StatePaths
from mock_services.store import EnvironmentStore

ROOT = Path(__file__).resolve().parents[2] / "mock_services"


def readback(client: TestClient, model: dict, base: str) -> Callable:
    """A check: a 2xx create's answer names an id whose item path then answers 200."""
    creates = {o: model["resources"][e["resource"]] for o, e in model["operations"].items() if e["action"] == "create"}

    def created_resource_reads_back(ctx, response, case) -> bool | None:
        resource = creates.get(case.operation.definition.raw.get("operationId"))
        if resource is None or not resource["item"] or not 200 <= response.status_code < 300:
            return None
        answer = response.json()
        made = answer.get(resource.get("envelope"), answer)  # Zendesk's {"ticket": {...}}
        # Google names a resource by its path (`spaces/AAQA1/messages/x`): its last segment is the id
        made = made[resource.get("id_field", "id")] if resource.get("id_field", "id") in made else \
            made["name"].rpartition("/")[2]
        path = resource["item"].replace("{" + resource["key"] + "}", str(made))
        for name, value in (case.path_parameters or {}).items():
            path = path.replace("{" + name + "}", str(value))
        sent = {k: v for k, v in (case.headers or {}).items() if k.lower() != "content-type"}  # Notion-Version
        again = client.get(base + path, headers={**sent, "Authorization": "Bearer sk_test_property"})
        assert again.status_code == 200, f"{case.method} {case.path} made {made}, but GET {path} answers " \
                                         f"{again.status_code}: {again.text[:200]}"
        return True
    return created_resource_reads_back


def property_test(pack: str, examples: int, paths: str = "", relative: tuple[str, ...] = (),
                  overridden: bool = False, coverage: bool = True,
                  headers: dict[str, str] | None = None) -> Callable:
    """The test for `pack`: schemathesis over its modeled operations (those of paths matching the
    regex `paths`, where given), against a fresh environment. `relative` names answer fields whose
    description says `format: uri` where the vendor answers a path from its root (and its client
    needs one): those are checked as text. With `overridden`, the operations the pack's overrides
    answer are tested too; `coverage=False` skips schemathesis's coverage phase, whose enumeration
    of every member of every union does not end on a description of TypeScript's unions (Notion's).
    `headers` are sent as given in place of generated ones (Notion's description names two
    versions; the older one's answers keep their older shape, which its rules test checks)."""
    folder = ROOT / pack
    document = json.loads((folder / "spec" / "openapi.json").read_text())
    _relative_uris(document, set(relative))
    model = json.loads((folder / "spec" / "model.json").read_text())
    wanted = {o["operationId"] for path, ops in document["paths"].items() if re.search(paths, path)
              for o in ops.values()}
    answered = set(getattr(importlib.import_module(f"mock_services.{pack}.overrides"), "HANDLERS", {})) \
        if overridden else set()
    modeled = sorted(o for o, e in model["operations"].items() if (e["action"] or o in answered) and o in wanted)
    schema = schemathesis.openapi.from_dict(document).include(operation_id=modeled)

    @schema.parametrize()
    @settings(max_examples=examples, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck),
              phases=list(Phase) if coverage else [Phase.generate])
    def test(case, tmp_path_factory) -> None:
        key = ("client", pack)
        if key not in CLIENTS:
            state = StatePaths(tmp_path_factory.mktemp(f"{pack}-properties")).ensure()
            client = TestClient(create_app(state, api_auth=False), raise_server_exceptions=False)
            env = EnvironmentStore(state).create(f"{pack}_default").env_id
            # below the description's own base path (Asana's `/api/1.0`, Discord's `/api/v10`), as its clients call
            prefix = urlsplit((document.get("servers") or [{"url": ""}])[0]["url"]).path.rstrip("/")
            CLIENTS[key] = (client, f"/api/env/{env}/services/{pack}{prefix}")
        client, base = CLIENTS[key]
        # A control character in a path segment never reaches any replica: Starlette's `{path:path}`
        # does not match across a newline, so the app's own 404 answers (not the pack's).
        assume(not any(c < " " for v in (case.path_parameters or {}).values() for c in unquote(str(v))))
        kwargs = case.as_transport_kwargs(base_url="http://testserver" + base)
        kwargs["headers"] = {**(kwargs.get("headers") or {}), **(headers or {}),
                             "Authorization": "Bearer sk_test_property"}
        kwargs.pop("verify", None)
        try:
            response = client.request(**{k: v for k, v in kwargs.items() if k in
                                         ("method", "url", "headers", "params", "data", "json", "content", "files")})
        except Exception as e:  # a request no HTTP client can send (a query beyond httpx's URL limit)
            assume(type(e).__name__ != "InvalidURL")
            raise
        # A 400 for a request outside the description, a 404 for a path naming no row, or a 422
        # for a record the vendor refuses (Zendesk's RecordInvalid), is the vendor's even where its
        # description lists none for that operation (Jira's lists few); its body is still checked
        # where the description gives one.
        statuses = [] if response.status_code in (400, 404, 422) else [status_code_conformance]
        case.validate_response(response, checks=[not_a_server_error, *statuses, content_type_conformance,
                                                 response_schema_conformance, readback(client, model, base)])
    return test


def _relative_uris(node: object, names: set[str]) -> None:
    if isinstance(node, dict):
        for name, prop in (node.get("properties") or {}).items():
            if name in names and isinstance(prop, dict) and prop.get("format") == "uri":
                del prop["format"]
        for value in node.values():
            _relative_uris(value, names)
    elif isinstance(node, list):
        for value in node:
            _relative_uris(value, names)


CLIENTS: dict[tuple[str, str], tuple[TestClient, str]] = {}
