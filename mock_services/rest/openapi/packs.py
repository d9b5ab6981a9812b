"""Every generated pack's engine, by the pack's name. A generated pack is data (its description
spec/openapi.json, its model spec/model.json, its descriptor spec/pack.json) and its overrides
module; its descriptor names `mock_services.rest.openapi.packs:NAME.router` (and `.fault_answer`, `.coverage`),
which this module builds once per process from the pack's package, so no pack repeats a router."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from fastapi import APIRouter

from detour_core.registry import package_of
from mock_services.coverage import Kind
from mock_services.rest.act import rest_act
from mock_services.rest.openapi.runtime import build
from mock_services.rest.router import RestApi


@dataclass(frozen=True)
class Generated:
    """One generated pack's engine: the API table its router serves, and its fault answers."""

    api: RestApi
    router: APIRouter
    fault_answer: Any

    def coverage(self) -> dict[str, Kind]:
        """Each operation of its description: stateful, generated or not served."""
        return self.api.coverage()

    def act(self, *step: Any) -> dict:
        """A timeline step (`do` a request line) through the pack's own operations, as its person
        (a descriptor's `act`: `mock_services.rest.openapi.packs:NAME.act`)."""
        return rest_act(self.api)(*step)


def folder_of(package: str) -> Path:
    found = importlib.util.find_spec(package)
    if found is None or not found.submodule_search_locations:
        raise ModuleNotFoundError(f"no package {package}", name=package)
    return Path(next(iter(found.submodule_search_locations)))


@cache
def generated(name: str) -> Generated:
    """The engine of the registered generated pack `name` (built on first use)."""
    package = package_of(name)
    return Generated(*build(folder_of(package), f"{package}.overrides"))


def __getattr__(name: str) -> Generated:
    """`packs.stripe` is Stripe's engine (how a descriptor's "module:attribute" reaches it)."""
    if name.startswith("__"):
        raise AttributeError(name)
    return generated(name)
