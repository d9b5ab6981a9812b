"""Builds the acme world template (mock_services/worlds/acme.json) from its data, and checks it.

    python -m mock_services.worlds.acme.build           # write acme.json
    python -m mock_services.worlds.acme.build --check   # fail if acme.json is not what the data makes

The data (this folder): people.json (who works at Acme), world.json (the services' seeds it
joins, the text replacements that make the seeds' people Acme's, the links to check),
rows.json (rows the seeds lacked, by `service.table`) and contents/ (files' bytes). Nothing
here knows a service's rows: people are found in each service by email, through each pack's
descriptor (`users_table`, `user_email`), so a pack joins by adding its seed and rows here.
"""

from __future__ import annotations

import base64
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from detour_core.registry import pack
from mock_services.templates import CONTENTS_KEY, builtin_template_file
from mock_services.world import WORLD_KEY, qualified

HERE = Path(__file__).parent
OUTPUT = HERE.parent / "acme.json"


class BrokenWorld(Exception):
    """The world's data does not hold together (a person missing from a service, a dead link)."""


def seeded_tables(world: dict) -> dict[str, list[dict]]:
    """Every service's seed, its people renamed as Acme's, then the rows it lacked."""
    tables: dict[str, list[dict]] = {}
    for service, seed in world["services"].items():
        text = builtin_template_file(seed).read_text()
        for old, new in world.get("replace", {}).get(service, {}).items():
            text = text.replace(old, new)
        rows = json.loads(text)
        rows.pop("_detour", None)
        tables.update({qualified(service, table): found for table, found in rows.items()})
    for table, rows in json.loads((HERE / "rows.json").read_text()).items():
        tables.setdefault(table, []).extend(rows)
    return tables


def identities(people: list[dict], services: list[str], tables: dict[str, list[dict]]) -> list[dict]:
    """Each person's user id in every service that has people (its descriptor names their email
    field), found by their email there (exactly once)."""
    out = []
    for person in people:
        ids = {}
        for service in services:
            descriptor = pack(service)
            if not descriptor.user_email:
                continue  # an account, not people (Twilio's): whoever acts uses it
            users = tables.get(qualified(service, descriptor.users_table), [])
            key = descriptor.primary_key(descriptor.users_table)[0]
            found = [u[key] for u in users if str(u.get(descriptor.user_email, "")).lower() == person["email"]]
            if len(found) != 1:
                raise BrokenWorld(f"{person['person']} ({person['email']}) is {len(found)} users in {service}, not one")
            ids[service] = str(found[0])
        out.append({**person, "ids": ids})
    return out


def check_links(links: list[dict], tables: dict[str, list[dict]]) -> None:
    """Every link names rows that exist: an exact `where`, or text a field `contains`."""
    for link in links:
        rows = tables.get(link["table"], [])
        exact, parts = link.get("where", {}), link.get("contains", {})
        if not any(all(r.get(k) == v for k, v in exact.items())
                   and all(v in str(r.get(k, "")) for k, v in parts.items()) for r in rows):
            raise BrokenWorld(f"link {link['about']!r}: no row of {link['table']} matches")


def contents(world: dict) -> dict[str, str]:
    """Files' bytes by the key their pack reads them by (Box's: SHA-1)."""
    out = {}
    for names in world.get("contents", {}).values():
        for name in names:
            data = (HERE / "contents" / name).read_bytes()
            out[hashlib.sha1(data, usedforsecurity=False).hexdigest()] = base64.b64encode(data).decode()
    return out


def build() -> dict[str, Any]:
    world = json.loads((HERE / "world.json").read_text())
    people = json.loads((HERE / "people.json").read_text())["people"]
    services = list(world["services"])
    tables = seeded_tables(world)
    check_links(world["links"], tables)
    head = {"services": dict.fromkeys(services), "people": identities(people, services, tables),
            "acting": world["acting"]}
    return {WORLD_KEY: head, CONTENTS_KEY: contents(world), **tables}


def main(argv: list[str]) -> int:
    text = json.dumps(build(), indent=1, sort_keys=False) + "\n"
    if "--check" in argv:
        if not OUTPUT.is_file() or OUTPUT.read_text() != text:
            print(f"{OUTPUT} is not what the data in {HERE} makes: run python -m mock_services.worlds.acme.build")
            return 1
        return 0
    OUTPUT.write_text(text)
    print(f"wrote {OUTPUT} ({len(text) // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
