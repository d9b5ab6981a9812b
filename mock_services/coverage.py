"""How much of a vendor's API a pack serves, per operation, computed from the pack itself (its
handlers as the engine holds them), never written by hand. An operation is:

- stateful: it reads or changes the environment's rows;
- generated: it answers the vendor's shape with nothing stored behind it (an empty list, a
  documented default);
- not served: it answers, in the vendor's error shape, that the replica lacks it.

A pack names its coverage in its descriptor (`coverage`: "module:attribute" of a function with
no arguments giving {operation: kind}); a handler says what it is with `mark`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal, TypeVar

from detour_core.pack import ServicePack, resolve

Kind = Literal["stateful", "generated", "not served"]
KINDS: tuple[Kind, ...] = ("stateful", "generated", "not served")
STATEFUL, GENERATED, NOT_SERVED = KINDS
ATTRIBUTE = "detour_coverage"

F = TypeVar("F", bound=Callable)


def mark(handler: F, kind: Kind) -> F:
    """`handler` as answering `kind` (a handler not marked keeps state)."""
    setattr(handler, ATTRIBUTE, kind)
    return handler


def kind_of(handler: Callable) -> Kind:
    return getattr(handler, ATTRIBUTE, STATEFUL)


def of(pack: ServicePack) -> Mapping[str, Kind] | None:
    """{operation: kind} for every operation of the pack's vendor description; None where the
    pack does not say."""
    return resolve(pack.coverage)() if pack.coverage else None


def counts(coverage: Mapping[str, Kind]) -> dict[Kind, int]:
    return {kind: sum(1 for k in coverage.values() if k == kind) for kind in KINDS}
