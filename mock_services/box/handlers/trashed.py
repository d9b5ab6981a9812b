"""One trashed item, of any kind (file, folder, web link): shown, restored or purged, the same
way for each, as Box's `trashed_files`, `trashed_folders` and `trashed_web_links` managers are."""

from __future__ import annotations

from collections.abc import Callable

from mock_services.box import access, errors, tree
from mock_services.box.access import EDIT, SEE
from mock_services.box.handlers import items
from mock_services.rest.router import Call
from mock_services.store import Row


def trashed_row(call: Call, kind: str, needs: str = SEE) -> Row:
    """The item of the route's `<kind>_id`, which must be in the trash (else not_found, as Box)."""
    row = access.item(call, kind, call.params[f"{kind}_id"], needs, trashed_ok=True)
    if row.get("item_status") != "trashed":
        raise errors.not_found(kind)
    return row


def handlers(kind: str) -> tuple[Callable[[Call], dict], Callable[[Call], dict], Callable[[Call], None]]:
    """(show, restore, purge) for one kind."""
    def show(call: Call) -> dict:
        return items.answer(call, trashed_row(call, kind))

    def restore(call: Call) -> dict:
        row = trashed_row(call, kind, EDIT)
        body = call.body or {}
        tree.restore(call, row, body.get("name"), tree.parent_id(body) or None)
        call.status = 201
        return items.answer(call, row)

    def purge(call: Call) -> None:
        tree.purge(call, trashed_row(call, kind, EDIT))
    return show, restore, purge
