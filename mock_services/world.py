"""Worlds: one environment holding several services, with one list of people.

A world template is a template with a `_world` key. It names the services it joins (each with
a seed template of that service, or none) and its people, each with their identity in every
service; rows of its own are keyed `service.table`:

    {"_world": {"services": {"slack": "slack_default", "linear": null},
                "people": [{"person": "john", "name": "John Doe", "email": "john@example.com",
                            "ids": {"slack": "U02JOHNDOE1", "linear": "2dcc..."}}],
                "acting": "agent"},
     "linear.users": [...], ...}

In an environment a world's rows are kept under `service.table`, and each pack sees only its
own tables by their bare names (mock_services.store.EnvState.scoped): packs never know they
share an environment, and never import each other. Links across services (the same email in
Slack and Calendar) are data, checked by the script that builds the world.
"""

from __future__ import annotations

from pydantic import Field

from detour_core.strict import Strict

WORLD_KEY = "_world"
WORLD_SERVICE = "world"  # an environment's `service` when it holds several
SEPARATOR = "."


class Person(Strict):
    """One person of a world, and who they are in each service."""
    person: str = Field(description="The person's handle in the world (`--as` names it).")
    name: str = ""
    email: str = ""
    title: str = ""
    ids: dict[str, str] = Field({}, description="service -> the person's user id there")


class WorldSettings(Strict):
    """What a world template says besides its rows."""
    services: dict[str, str | None] = Field(description="service -> its seed template (or none)")
    people: list[Person] = []
    acting: str | None = Field(None, description="Who acts unless told otherwise (else the first person).")


def qualified(service: str, table: str) -> str:
    return f"{service}{SEPARATOR}{table}"


def split(table: str) -> tuple[str | None, str]:
    """`slack.users` -> ("slack", "users"); a bare name has no service."""
    service, dot, bare = table.partition(SEPARATOR)
    return (service, bare) if dot else (None, table)


def person_named(people: list[Person], handle: str) -> Person | None:
    return next((p for p in people if p.person == handle), None)
