"""The generated packs' fidelity, per family (a resource's table): of its operations, how many
the generic semantics answer, how many an override does, how many are unmodeled; and every read
and list it answers, called in process on its seed's own rows, must answer 200 with a body the
vendor's description accepts. It prints the score per family (what schemathesis cannot: the
seeded rows read back as described)."""

from __future__ import annotations

import importlib
import json
from collections import Counter
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from detour.apps.server import create_app
from detour_core.paths import StatePaths
from mock_services.rest.openapi.schemas import Schemas
from mock_services.store import EnvironmentStore

ROOT = Path(__file__).resolve().parents[2] / "mock_services"
PACKS = ("stripe", "jira", "jira_agile", "twilio", "hubspot", "zendesk", "notion")
# Packs none of whose reads is generic (their overrides answer every operation).
ALL_OVERRIDDEN = ("notion",)


def _path_for(path: str, resource: dict, model: dict, seed: dict) -> str | None:
    """The path with its placeholders filled from the seed's rows (None: nothing seeded there)."""
    rows = seed.get(resource["table"], [])
    parent = model["resources"].get(resource.get("parent") or "")
    if parent:
        parents = seed.get(parent["table"], [])
        if not parents:
            return None
        field = resource["parent_key"] if resource["parent_key"] in (rows or [{}])[0] else None
        chosen = parents[0]
        rows = [r for r in rows if field is None or r.get(field) == chosen["id"]] or rows
        path = path.replace("{" + resource["parent_key"] + "}", str(chosen["id"]))
    if resource["key"] and "{" + resource["key"] + "}" in path:
        if not rows:
            return None
        path = path.replace("{" + resource["key"] + "}", str(rows[0]["id"]))
    return None if "{" in path else path


@pytest.mark.parametrize("pack", PACKS)
def test_seeded_rows_read_back_as_described(pack, tmp_path):
    folder = ROOT / pack
    document = json.loads((folder / "spec" / "openapi.json").read_text())
    model = json.loads((folder / "spec" / "model.json").read_text())
    seed = json.loads((folder / "templates" / f"{pack}_default.json").read_text())
    try:
        overridden = set(importlib.import_module(f"mock_services.{pack}.overrides").HANDLERS)
    except (ModuleNotFoundError, AttributeError):
        overridden = set()
    schemas = Schemas(document)
    state = StatePaths(tmp_path / "home").ensure()
    client = TestClient(create_app(state, api_auth=False), raise_server_exceptions=False)
    base = f"/api/env/{EnvironmentStore(state).create(f'{pack}_default').env_id}/services/{pack}"
    score: dict[str, Counter] = {}
    by_length = sorted(model["resources"].values(), key=lambda r: -len(r["collection"]))  # the nearest family
    wrong = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            entry = model["operations"][operation["operationId"]]
            family = entry["resource"] or next((r["table"] for r in by_length if path.startswith(
                r["collection"].removesuffix(".json"))), "other")
            counts = score.setdefault(family, Counter())
            counts["operations"] += 1
            counts["override" if operation["operationId"] in overridden else
                   "generic" if entry["action"] else "unmodeled"] += 1
            if method != "get" or entry["action"] not in ("read", "list") or operation["operationId"] in overridden:
                continue
            filled = _path_for(path, model["resources"][entry["resource"]], model, seed)
            if filled is None:
                counts["not seeded"] += 1
                continue
            required = {p["name"]: (schemas.resolve(p["schema"]).get("enum") or [None])[0]
                        for p in operation["parameters"] if p["in"] == "query" and p.get("required")}
            if None in required.values():
                counts["needs arguments"] += 1
                continue
            answer = client.get(base + filled, params=required,
                                headers={"Authorization": "Bearer fidelity", "Host": "acme.example"})
            described = operation["responses"].get("200", {}).get("content", {})
            schema = next(iter(described.values()), {}).get("schema")
            if answer.status_code == 200 and (schema is None or schemas.valid(answer.json(), schema)):
                counts["read back"] += 1
            else:
                wrong.append(f"GET {filled}: {answer.status_code} {answer.text[:200]}")
    print(f"\n{pack}: " + "; ".join(f"{family} {dict(counts)}" for family, counts in sorted(score.items())))
    assert not wrong, "\n".join(wrong)
    # jira_agile's seed is empty; an all-overridden pack's seed is read back by its own rules test
    assert sum(c["read back"] for c in score.values()) > 0 or pack == "jira_agile" or pack in ALL_OVERRIDDEN
