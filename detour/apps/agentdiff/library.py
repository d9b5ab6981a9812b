"""Where AgentDiff's objects live in detour: suites (with their tests) and runs as JSON files
under $DETOUR_HOME/agentdiff, written atomically, so they survive restarts; templates are
detour's own, given stable UUIDs because AgentDiff addresses templates by id."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from detour_core.paths import StatePaths
from detour.apps.agentdiff.models import Run, Suite, Test, TestItem
from detour_core.errors import EnvironmentNotFound, UnknownTemplate
from mock_services.templates import template_names

TEMPLATE_NAMESPACE = uuid.UUID("6f1d2c1e-6a53-4f0e-9d7e-6b1c0d7e2a10")  # detour's, for uuid5
Stored = TypeVar("Stored", bound=BaseModel)


class NotFound(EnvironmentNotFound):
    """A run, suite or test that is not there (HTTP 404, like a missing environment)."""


def now() -> datetime:
    return datetime.now(timezone.utc)


def template_id(name: str) -> str:
    return str(uuid.uuid5(TEMPLATE_NAMESPACE, name))


def template_name(state: StatePaths, name_or_id: str) -> str:
    """A template's name from its name or its AgentDiff id."""
    names = template_names(state)
    if name_or_id in names:
        return name_or_id
    by_id = {template_id(name): name for name in names}
    if name_or_id in by_id:
        return by_id[name_or_id]
    raise UnknownTemplate(f"unknown template {name_or_id!r} (GET /api/platform/templates lists them)")


class Shelf:
    """One kind of object, one JSON file each."""

    def __init__(self, folder: Path, model: type[Stored], what: str) -> None:
        self.folder, self.model, self.what = folder, model, what

    def save(self, key: str, item: Stored) -> Stored:
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / f"{key}.json.tmp"
        tmp.write_text(item.model_dump_json())
        tmp.replace(self.folder / f"{key}.json")
        return item

    def get(self, key: str) -> Stored:
        path = self.folder / f"{key}.json"
        if not key.replace("-", "").isalnum() or not path.is_file():
            raise NotFound(f"no {self.what} {key!r}")
        return self.model.model_validate_json(path.read_text())

    def all(self) -> list[Stored]:
        if not self.folder.is_dir():
            return []
        return [self.model.model_validate_json(p.read_text()) for p in sorted(self.folder.glob("*.json"))]


class Library:
    def __init__(self, state: StatePaths) -> None:
        self.state = state
        root = state.home / "agentdiff"
        self.runs: Shelf = Shelf(root / "runs", Run, "run")
        self.suites: Shelf = Shelf(root / "suites", Suite, "test suite")

    def new_tests(self, items: list[TestItem], default_template: str | None = None) -> list[Test]:
        stamp = now()
        return [Test(id=str(uuid.uuid4()), name=item.name, prompt=item.prompt, type=item.type,
                     seed_template=template_name(self.state, item.environmentTemplate or default_template or ""),
                     expected_output=item.expected_output, impersonateUserId=item.impersonateUserId,
                     created_at=stamp, updated_at=stamp) for item in items]

    def test(self, test_id: str) -> Test:
        for suite in self.suites.all():
            for test in suite.tests:
                if test.id == test_id:
                    return test
        raise NotFound(f"no test {test_id!r}")
