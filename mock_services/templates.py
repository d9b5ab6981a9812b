"""Templates: AgentDiff seed files (`{table: [row, ...]}`) that environments start from.

Built-in templates ship with their service pack (mock_services/<service>/templates/); users
add their own under $DETOUR_HOME/templates/ (for instance from an environment's current state).
Beside its tables a template may say, under `"_detour"`, what its environments start with
besides rows: their time (`now`, frozen there), their seed, and faults (a curriculum that
replays): `{"_detour": {"now": "2025-06-02T09:00:00Z", "seed": "s", "faults": [...]}, ...tables}`.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from pydantic import Field, ValidationError

from detour_core.faults import Fault
from detour_core.paths import StatePaths
from detour_core.strict import Strict, first_error
from detour_core.registry import pack, signature_tables, template_folders
from detour_core.errors import InvalidTemplate, UnknownTemplate
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")

Rows = dict[str, list[dict]]


SETTINGS_KEY = "_detour"


class TemplateSettings(Strict):
    """What a template's environments start with besides their rows."""
    now: datetime | None = Field(None, description="Their clock, frozen at this time (else the wall clock's).")
    seed: str | None = Field(None, description="What their ids are drawn from (else the template's name).")
    faults: list[Fault] = Field([], description="Their policy's faults.")


@dataclass(frozen=True)
class Template:
    name: str
    service: str
    tables: Rows
    digest: str = ""  # of the file's text: a database may keep one copy per content to clone
    settings: TemplateSettings = field(default_factory=TemplateSettings)


def _search_path(state: StatePaths) -> list[Path]:
    return [state.templates_dir, *template_folders()]


def template_names(state: StatePaths) -> list[str]:
    names = {p.stem for folder in _search_path(state) if folder.is_dir() for p in folder.glob("*.json")}
    return sorted(names)


def load_template(state: StatePaths, name: str, first_in: tuple[Path, ...] = ()) -> Template:
    """The named template; `first_in` folders (a suite's own seeds) are searched first."""
    if not NAME_PATTERN.fullmatch(name):
        raise UnknownTemplate(f"invalid template name {name!r}")
    for folder in [*first_in, *_search_path(state)]:
        path = folder / f"{name}.json"
        if path.is_file():
            return parse_template(name, path.read_text())
    known = ", ".join(template_names(state)) or "none"
    raise UnknownTemplate(f"unknown template {name!r}; known templates: {known}")


def parse_template(name: str, text: str) -> Template:
    try:
        tables = json.loads(text)
    except json.JSONDecodeError as e:
        raise InvalidTemplate(f"template {name!r} is not valid JSON: {e}") from None
    try:
        settings = TemplateSettings.model_validate(tables.pop(SETTINGS_KEY, {}) if isinstance(tables, dict) else {})
    except ValidationError as e:
        raise InvalidTemplate(f"template {name!r}: {SETTINGS_KEY}: {first_error(e)}") from None
    if not isinstance(tables, dict) or not all(
        isinstance(rows, list) and all(isinstance(r, dict) for r in rows) for rows in tables.values()
    ):
        raise InvalidTemplate(f"template {name!r} must be an object of table name -> list of rows")
    service = _infer_service(name, tables)
    for table, rows in tables.items():
        key = pack(service).primary_key(table)
        if any(not all(col in row for col in key) for row in rows):
            raise InvalidTemplate(f"template {name!r}: every row of {table!r} needs {', '.join(key)}")
    return Template(name, service, tables, hashlib.sha256(text.encode()).hexdigest(), settings)


def _infer_service(name: str, tables: Rows) -> str:
    signatures = signature_tables()
    services = {signatures[t] for t in tables if t in signatures}
    if len(services) != 1:
        raise InvalidTemplate(
            f"template {name!r}: cannot tell its service; it needs one of the tables "
            f"{', '.join(sorted(signatures))}, all of one service"
        )
    return services.pop()


def save_template(state: StatePaths, name: str, tables: Rows) -> Path:
    """Write a user template; refuses to overwrite one that exists, built in or not."""
    if not NAME_PATTERN.fullmatch(name):
        raise InvalidTemplate(f"invalid template name {name!r}")
    parse_template(name, json.dumps(tables))
    if name in template_names(state):
        raise InvalidTemplate(f"template {name!r} exists already")
    state.templates_dir.mkdir(parents=True, exist_ok=True)
    path = state.templates_dir / f"{name}.json"
    path.write_text(json.dumps(tables, indent=2))
    return path


def builtin_template_file(name: str) -> Path:
    """Where a built-in template ships (in its pack's folder)."""
    for folder in template_folders():
        if (folder / f"{name}.json").is_file():
            return folder / f"{name}.json"
    raise UnknownTemplate(f"no built-in template {name!r}")
