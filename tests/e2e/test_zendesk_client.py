"""zenpy, the most used Python client of Zendesk's Support API, run unmodified in a sandbox
against a tenant's site (acme.zendesk.com, routed by the pack's `*.zendesk.com`), reaches the
environment's Zendesk replica (a pack generated from Zendesk's OpenAPI description) through the
proxy: who am I, a user found by search, a ticket created for them, an internal note and a status
change in one update, the ticket read back with its comments, search by type and status, the
organizations, Zendesk's RecordNotFound; the diff shows the ticket and its two comments."""

from __future__ import annotations

import pytest

from tests.conftest import ISOLATING
from tests.e2e.official_clients import run_official_client

AGENT = r'''
import json
from zenpy import Zenpy
from zenpy.lib.api_objects import Comment, Ticket
from zenpy.lib.exception import RecordNotFoundException

zendesk = Zenpy(subdomain="acme", email="agent@example.com", token="api-token")
me = zendesk.users.me()
out = {"me": [me.name, me.role]}
hank = next(iter(zendesk.search("hank@globex.example.com", type="user")))
audit = zendesk.tickets.create(Ticket(subject="Charged twice for order 1042", requester_id=hank.id,
                                      description="My card was charged twice this morning.", priority="high"))
ticket = audit.ticket
out["created"] = [ticket.id, ticket.status, ticket.requester_id == hank.id, audit.audit.events[0]["type"]]
ticket.comment = Comment(body="Refunded the duplicate charge.", public=False)
ticket.status = "pending"
zendesk.tickets.update(ticket)
again = zendesk.tickets(id=ticket.id)
out["again"] = [again.subject, again.status, again.priority]
out["comments"] = [[c.body, c.public] for c in zendesk.tickets.comments(ticket=ticket.id)]
out["open"] = sorted(t.subject for t in zendesk.search(type="ticket", status="open"))
out["pending"] = sorted(t.id for t in zendesk.search(type="ticket", status="pending"))
out["organizations"] = sorted(o.name for o in zendesk.organizations())
try:
    zendesk.tickets(id=999)
except RecordNotFoundException as e:
    out["missing"] = [e.response.status_code, e.response.json()["error"]]
print(json.dumps(out))
'''

EXPECTED = {"me": ["AI Agent", "admin"], "created": [5, "new", True, "Comment"],
            "again": ["Charged twice for order 1042", "pending", "high"],
            "comments": [["My card was charged twice this morning.", True], ["Refunded the duplicate charge.", False]],
            "open": ["Cannot log in after a password reset"], "pending": [2, 5], "organizations": ["Globex", "Initech"],
            "missing": [404, "RecordNotFound"]}


@pytest.mark.parametrize("backend", ISOLATING)
def test_zenpy_through_the_proxy(live_stack, backend):
    """A ticket made and changed in one run is one insert, and its comments are two."""
    result = run_official_client(live_stack, "zendesk_default", AGENT, EXPECTED, {"acme.zendesk.com"},
                                 ["zendesk_tickets", "zendesk_tickets_comments", "zendesk_tickets_comments"],
                                 backend)
    ticket = next(row for row in result.diff.inserts if row["__table__"] == "zendesk_tickets")
    assert (ticket["id"], ticket["status"], "comment" in ticket) == (5, "pending", False)
