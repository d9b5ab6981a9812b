"""Builds templates/zendesk_default.json: Acme's Zendesk Support (acme.zendesk.com), whose agents
are the acme world's people (names and emails as mock_services/worlds/acme/people.json has them;
the AI agent is an admin), two customer organizations (the Globex and Initech of the HubSpot
seed) with an end user each, and four tickets they raised, numbered 1 to 4 as Zendesk numbers an
account's tickets, each with its first comment (and one reply). Ids of users, organizations and
comments are Zendesk's large numbers, drawn from a hash of what they name.

    python -m mock_services.zendesk.build_seed
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

HERE = Path(__file__).parent
PEOPLE = HERE.parent / "worlds" / "acme" / "people.json"
SITE = "https://acme.zendesk.com"
CREATED = "2025-06-02T08:00:00Z"
CUSTOMERS = (("hank", "Hank Scorpio", "hank@globex.example.com", "globex"),
             ("peter", "Peter Gibbons", "peter@initech.example.com", "initech"))
ORGANIZATIONS = (("globex", "Globex", "globex.example.com"), ("initech", "Initech", "initech.example.com"))
# (subject, requester, assignee, status, priority, type, tags, first comment, reply by, reply)
TICKETS = (
    ("Cannot log in after a password reset", "hank", "priya", "open", "high", "problem", ["login"],
     "Since resetting my password this morning the login page keeps sending me back to itself.",
     "priya", "Thanks Hank, we can reproduce it and are on it."),
    ("Invoice shows the wrong VAT number", "peter", "john", "pending", "normal", "question", ["billing"],
     "Our June invoice has an old VAT number on it. Could you send a corrected one?", None, None),
    ("Export reports to CSV", "peter", None, "new", "low", "task", ["feature_request"],
     "It would help us a lot to export the monthly reports as CSV.", None, None),
    ("Checkout page times out", "hank", "robert", "solved", "urgent", "incident", ["checkout"],
     "The checkout page timed out for all our buyers between 9 and 10 am.", None, None),
)


def number(name: str, digits: int = 13) -> int:
    return 10 ** (digits - 1) + int(hashlib.sha256(f"acme:zendesk:{name}".encode()).hexdigest(), 16) \
        % (9 * 10 ** (digits - 1))


def user(name: str, email: str, role: str, organization: int | None = None) -> dict:
    made = number(email)
    return {"id": made, "url": f"{SITE}/api/v2/users/{made}.json", "name": name, "email": email, "role": role,
            "active": True, "verified": True, "suspended": False, "organization_id": organization,
            "time_zone": "UTC", "iana_time_zone": "Etc/UTC", "locale": "en-US", "locale_id": 1, "tags": [],
            "user_fields": {}, "external_id": None, "phone": None, "photo": None, "moderator": role != "end-user",
            "restricted_agent": False, "shared": False, "created_at": CREATED, "updated_at": CREATED}


def comment(ticket: int, index: int, author: int, body: str) -> dict:
    return {"id": number(f"comment:{ticket}:{index}"), "ticket_id": ticket, "type": "Comment", "author_id": author,
            "body": body, "html_body": f'<div class="zd-comment" dir="auto"><p dir="auto">{body}</p></div>',
            "plain_body": body, "public": True, "attachments": [], "audit_id": number(f"audit:{ticket}:{index}"),
            "via": {"channel": "web", "source": {"from": {}, "to": {}, "rel": None}}, "metadata": {},
            "created_at": CREATED}


def build() -> dict:
    people = json.loads(PEOPLE.read_text())["people"]
    organizations = [{"id": number(key), "url": f"{SITE}/api/v2/organizations/{number(key)}.json", "name": name,
                      "domain_names": [domain], "details": None, "notes": None, "external_id": None,
                      "group_id": None, "shared_tickets": False, "shared_comments": False, "tags": [],
                      "organization_fields": {}, "created_at": CREATED, "updated_at": CREATED}
                     for key, name, domain in ORGANIZATIONS]
    users = [user(p["name"], p["email"], "admin" if p["person"] == "agent" else "agent") for p in people]
    users += [user(name, email, "end-user", number(org)) for _, name, email, org in CUSTOMERS]
    by = {p["person"]: number(p["email"]) for p in people} | {key: number(email) for key, _, email, _ in CUSTOMERS}
    org_of = {key: number(org) for key, _, _, org in CUSTOMERS}
    tickets, comments = [], []  # fields the description does not let be null are left out where unset
    for ticket_id, (subject, requester, assignee, status, priority, kind, tags, first, replier, reply) \
            in enumerate(TICKETS, start=1):
        comments.append(comment(ticket_id, 0, by[requester], first))
        if replier:
            comments.append(comment(ticket_id, 1, by[replier], reply))
        tickets.append({"id": ticket_id, "url": f"{SITE}/api/v2/tickets/{ticket_id}.json", "subject": subject,
                        "raw_subject": subject, "description": first, "status": status, "priority": priority,
                        "type": kind, "requester_id": by[requester], "submitter_id": by[requester],
                        **({"assignee_id": by[assignee]} if assignee else {}), "organization_id": org_of[requester],
                        "tags": tags, "via": {"channel": "web"}, "collaborator_ids": [], "follower_ids": [],
                        "email_cc_ids": [], "custom_fields": [], "is_public": True, "has_incidents": False,
                        "due_at": None, "created_at": CREATED, "updated_at": CREATED})
    return {"zendesk_users": users, "zendesk_organizations": organizations, "zendesk_tickets": tickets,
            "zendesk_tickets_comments": comments}


def main() -> None:
    (HERE / "templates" / "zendesk_default.json").write_text(json.dumps(build(), indent=1) + "\n")


if __name__ == "__main__":
    main()
