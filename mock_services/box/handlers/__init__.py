"""State-backed handlers of the Box SDK's operations, by family. HANDLERS maps every
operation of the generated spec to one: the modeled families to theirs, and the rest (the
enterprise and admin products: shield, legal holds, sign, AI, retention, ...) to Box's error
shape with 501, saying that the replica does not model them yet."""

from __future__ import annotations

from collections.abc import Callable

from mock_services.box import errors
from mock_services.coverage import NOT_SERVED, mark
from mock_services.box.handlers import (
    extras,
    files,
    folders,
    hubs,
    metadata,
    misc,
    people,
    search,
    sharing,
    social,
    transfer,
)
from mock_services.rest.router import Call
from mock_services.rest.spec import Spec

MODELED = {**folders.HANDLERS, **files.HANDLERS, **transfer.HANDLERS, **social.HANDLERS, **sharing.HANDLERS,
           **people.HANDLERS, **search.HANDLERS, **metadata.HANDLERS, **hubs.HANDLERS, **misc.HANDLERS,
           **extras.HANDLERS}


def _not_modeled(operation_id: str) -> Callable[[Call], None]:
    def answer(call: Call) -> None:
        raise errors.not_modeled(operation_id)
    return mark(answer, NOT_SERVED)


def handlers_for(spec: Spec) -> dict[str, Callable[[Call], object]]:
    """Operations that share a method and path are one endpoint on the wire (the SDK names
    variants of it): a modeled sibling answers for all of them."""
    by_route: dict[tuple[str, str], Callable[[Call], object]] = {}
    for operation in spec.operations:
        if operation.short_id in MODELED:
            by_route.setdefault((operation.method, operation.path), MODELED[operation.short_id])
    return {o.short_id: MODELED.get(o.short_id) or by_route.get((o.method, o.path)) or _not_modeled(o.id)
            for o in spec.operations}
