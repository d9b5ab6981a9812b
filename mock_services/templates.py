"""Templates: AgentDiff seed files (`{table: [row, ...]}`) that environments start from.

Built-in templates ship with their service pack (mock_services/<service>/templates/); users
add their own under $DETOUR_HOME/templates/ (for instance from an environment's current state).
Beside its tables a template may say, under `"_detour"`, what its environments start with
besides rows: their time (`now`, frozen there), their seed, and faults (a curriculum that
replays): `{"_detour": {"now": "2025-06-02T09:00:00Z", "seed": "s", "faults": [...]}, ...tables}`.
A world template (several services, one list of people: mock_services/world.py) has a `_world`
key; the worlds detour ships live in mock_services/worlds/.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, Field, ValidationError, model_validator

from detour_core.faults import Fault
from detour_core.paths import StatePaths
from detour_core.strict import KeptKeys, Strict, first_error
from detour_core.registry import pack, packs, signature_tables, template_folders
from detour_core.errors import InvalidTemplate, UnknownTemplate
from mock_services.timelines.model import Step, check_references
from mock_services.world import WORLD_KEY, WORLD_SERVICE, Person, WorldSettings, qualified, split

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")

Rows = dict[str, list[dict]]
M = TypeVar("M", bound=BaseModel)


SETTINGS_KEY = "_detour"
CONTENTS_KEY = "_contents"  # {key: base64}: bytes its rows name (Box's by SHA-1), kept as the environment's blobs


class TemplateSettings(Strict):
    """What a template's environments start with besides their rows."""
    now: datetime | None = Field(None, description="Their clock, frozen at this time (else the wall clock's).")
    seed: str | None = Field(None, description="What their ids are drawn from (else the template's name).")
    faults: list[Fault] = Field([], description="Their policy's faults.")
    timeline: list[Step] = Field([], description="What the other people do, and when (mock_services/timelines).")

    @model_validator(mode="after")
    def _steps_named(self) -> TemplateSettings:
        check_references(self.timeline)
        return self


@dataclass(frozen=True)
class Template:
    name: str
    service: str
    tables: Rows
    digest: str = ""  # of the file's text: a database may keep one copy per content to clone
    settings: TemplateSettings = field(default_factory=TemplateSettings)
    # A world's: the services it holds (its tables are `service.table`), its people, who acts.
    services: tuple[str, ...] = ()
    people: tuple[Person, ...] = ()
    acting: str | None = None
    contents: dict[str, bytes] = field(default_factory=dict)

    @property
    def is_world(self) -> bool:
        return bool(self.services)

    def held(self) -> tuple[str, ...]:
        return self.services or (self.service,)


WORLDS_FOLDER = Path(__file__).parent / "worlds"


def _search_path(state: StatePaths) -> list[Path]:
    return [state.templates_dir, *template_folders(), WORLDS_FOLDER]


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
            return parse_template(name, path.read_text(),
                                  lambda seed: load_template(state, seed, first_in))
    known = ", ".join(template_names(state)) or "none"
    raise UnknownTemplate(f"unknown template {name!r}; known templates: {known}")


SeedLoader = Callable[[str], Template]


def parse_template(name: str, text: str, seeds: SeedLoader | None = None) -> Template:
    """`seeds` loads the templates a world names (none: a world may then name none)."""
    try:
        tables = json.loads(text)
    except json.JSONDecodeError as e:
        raise InvalidTemplate(f"template {name!r} is not valid JSON: {e}") from None
    settings = _settings(name, tables, SETTINGS_KEY, TemplateSettings)
    contents = _contents(name, tables.pop(CONTENTS_KEY, {}) if isinstance(tables, dict) else {})
    world = _settings(name, tables, WORLD_KEY, WorldSettings) if WORLD_KEY in tables else None
    if isinstance(tables, dict) and world is None:
        _set_aside_unread(name, tables)
    if not isinstance(tables, dict) or not all(
        isinstance(rows, list) and all(isinstance(r, dict) for r in rows) for rows in tables.values()
    ):
        raise InvalidTemplate(f"template {name!r} must be an object of table name -> list of rows")
    digest = hashlib.sha256(text.encode()).hexdigest()
    if world is not None:
        return replace(_world_template(name, tables, world, settings, digest, seeds), contents=contents)
    service = _infer_service(name, tables)
    _check_keys(name, service, tables)
    return Template(name, service, tables, digest, settings, contents=contents)


def _set_aside_unread(name: str, tables: dict) -> None:
    """A seed in AgentDiff's format is read as AgentDiff reads it: a key that is no service's
    table and holds no rows, or names itself private (`_step_sequence`), is left in the file
    and named in one warning, never refused."""
    declared = {table for descriptor in packs() for table in descriptor.tables}
    unread = [key for key, value in tables.items() if key not in declared and (
        key.startswith("_") or not (isinstance(value, list) and all(isinstance(r, dict) for r in value)))]
    for key in unread:
        del tables[key]
    if unread:
        warnings.warn(f"template {name!r}: kept keys detour does not read: {', '.join(unread)}", KeptKeys,
                      stacklevel=3)


def _contents(name: str, given: Any) -> dict[str, bytes]:
    try:
        return {str(key): base64.b64decode(value, validate=True) for key, value in dict(given).items()}
    except (TypeError, ValueError, binascii.Error):
        raise InvalidTemplate(f"template {name!r}: {CONTENTS_KEY} is an object of key -> base64 bytes") from None


def _settings(name: str, tables: Any, key: str, model: type[M]) -> M:
    try:
        return model.model_validate(tables.pop(key, {}) if isinstance(tables, dict) else {})
    except ValidationError as e:
        raise InvalidTemplate(f"template {name!r}: {key}: {first_error(e)}") from None


def _check_keys(name: str, service: str, tables: Rows) -> None:
    for table, rows in tables.items():
        key = pack(service).primary_key(table)
        if any(not all(col in row for col in key) for row in rows):
            raise InvalidTemplate(f"template {name!r}: every row of {table!r} needs {', '.join(key)}")


def _world_template(name: str, own: Rows, world: WorldSettings, settings: TemplateSettings, digest: str,
                    seeds: SeedLoader | None) -> Template:
    """The named seeds' rows under `service.table`, then the world's own rows."""
    known = {p.name: p for p in packs()}
    tables: Rows = {}
    for service, seed_name in world.services.items():
        if service not in known:
            raise InvalidTemplate(f"world {name!r} names no service {service!r}; known: {', '.join(known)}")
        if seed_name is None:
            continue
        if seeds is None:
            raise InvalidTemplate(f"world {name!r}: its seed {seed_name!r} cannot be read here")
        seed = seeds(seed_name)
        if seed.is_world or seed.service != service:
            raise InvalidTemplate(f"world {name!r}: {seed_name!r} is not a {service} template")
        digest = hashlib.sha256((digest + seed.digest).encode()).hexdigest()
        tables.update({qualified(service, t): rows for t, rows in seed.tables.items()})
    for table, rows in own.items():
        service, bare = split(table)
        if service not in world.services:
            raise InvalidTemplate(f"world {name!r}: table {table!r} is not `service.table` of a service it names"
                                  f" ({', '.join(world.services)})")
        _check_keys(name, service, {bare: rows})
        tables.setdefault(table, []).extend(rows)
    handles = [p.person for p in world.people]
    if len(set(handles)) != len(handles):
        raise InvalidTemplate(f"world {name!r}: two people share a handle")
    if world.acting is not None and world.acting not in handles:
        raise InvalidTemplate(f"world {name!r}: its acting person {world.acting!r} is not one of its people")
    return Template(name, WORLD_SERVICE, tables, digest, settings, tuple(world.services), tuple(world.people),
                    world.acting)


def compose(templates: list[Template]) -> Template:
    """A world of several single-service templates (`env create --template a --template b`),
    with no people: each service's first user acts."""
    services = [t.service for t in templates]
    if any(t.is_world for t in templates) or len(set(services)) != len(services):
        raise InvalidTemplate("templates joined into one environment must be single-service templates of "
                              f"different services, not {', '.join(t.name for t in templates)}")
    tables = {qualified(t.service, table): rows for t in templates for table, rows in t.tables.items()}
    digest = hashlib.sha256("".join(t.digest for t in templates).encode()).hexdigest()
    return Template("+".join(t.name for t in templates), WORLD_SERVICE, tables, digest, templates[0].settings,
                    tuple(services))


def world_body(services: tuple[str, ...], people: list[Person], acting: str | None, tables: Rows) -> dict:
    """A world template's file (save-template of a world): its rows inline, no seeds named."""
    head = WorldSettings(services=dict.fromkeys(services), people=people, acting=acting)
    return {WORLD_KEY: head.model_dump(exclude_defaults=True), **tables}


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
    parse_template(name, json.dumps(tables), lambda seed: load_template(state, seed))
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
