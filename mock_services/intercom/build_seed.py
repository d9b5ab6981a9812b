"""Builds templates/intercom_default.json: Acme's Intercom workspace. The acme world's people
(mock_services/worlds/acme/people.json) are its admins (emails kept; Priya leads support); two
customers are contacts, one of whom wrote in about checkout failing for his 60-item cart (ENG-5), a
conversation Priya answered and assigned to herself; the other's question is open, unassigned;
a note on the first contact and a VIP tag. Ids are Intercom's shapes (24 hex digits for
contacts, numbers otherwise), drawn from a hash of what they name.

    python -m mock_services.intercom.build_seed
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

HERE = Path(__file__).parent
PEOPLE = HERE.parent / "worlds" / "acme" / "people.json"
AT = 1767603600  # 2026-01-05 09:00 UTC


def digest(name: str) -> str:
    return hashlib.sha256(f"acme:intercom:{name}".encode()).hexdigest()


def number(name: str, digits: int = 9) -> str:
    return str(10 ** (digits - 1) + int(digest(name), 16) % (9 * 10 ** (digits - 1)))


def author(kind: str, row: dict) -> dict:
    return {"type": kind, "id": row["id"], "name": row["name"], "email": row["email"]}


def conversation(key: str, contact: dict, text: str, parts: list[dict], **state: object) -> dict:
    return {"id": number(f"conversation:{key}", 15), "type": "conversation", "title": None, "created_at": AT,
            "updated_at": AT + 600 * len(parts), "waiting_since": None if parts else AT, "snoozed_until": None,
            "read": True, "priority": "not_priority", "tags": {"type": "tag.list", "tags": []},
            "source": {"type": "conversation", "id": number(f"source:{key}"), "delivered_as": "customer_initiated",
                       "subject": "", "body": f"<p>{text}</p>", "author": author("user", contact), "attachments": [],
                       "redacted": False},
            "contacts": {"type": "contact.list", "contacts": [{"type": "contact", "id": contact["id"]}]},
            "conversation_parts": {"type": "conversation_part.list", "conversation_parts": parts,
                                   "total_count": len(parts)}, **state}


def build() -> dict:
    people = json.loads(PEOPLE.read_text())["people"]
    admins = {p["person"]: {"id": number(p["email"], 7), "type": "admin", "name": p["name"], "email": p["email"],
                            "job_title": p["title"], "away_mode_enabled": False, "away_mode_reassign": False,
                            "has_inbox_seat": True, "team_ids": [], "avatar": None} for p in people}
    contacts = [{"id": digest(f"contact:{email}")[:24], "type": "contact", "role": "user", "email": email,
                 "email_domain": email.split("@")[1], "name": name, "phone": None, "external_id": None,
                 "workspace_id": "acme", "created_at": AT, "updated_at": AT, "signed_up_at": AT,
                 "custom_attributes": {"plan": plan}, "tags": {"type": "list", "data": []}}
                for email, name, plan in (("peter@initech.example.com", "Peter Gibbons", "business"),
                                          ("samir@initech.example.com", "Samir Nagheenanajar", "starter"))]
    priya = admins["priya"]
    answer = {"type": "conversation_part", "id": number("part:1"), "part_type": "comment",
              "body": "<p>Thanks Peter, our engineers are on it (ENG-5). We will write as soon as it is fixed.</p>",
              "created_at": AT + 600, "updated_at": AT + 600, "notified_at": AT + 600,
              "author": author("admin", priya), "attachments": [], "redacted": False}
    assigned = {**answer, "id": number("part:2"), "part_type": "assignment", "body": None,
                "assigned_to": {"type": "admin", "id": priya["id"]}}
    conversations = [
        conversation("large-cart", contacts[0], "Checkout fails for my cart of 60 items since this morning.",
                     [answer, assigned], open=True, state="open", admin_assignee_id=int(priya["id"])),
        conversation("invoice", contacts[1], "Can I get my invoices as PDF?", [], open=True, state="open",
                     admin_assignee_id=None)]
    note = {"id": number("note:1"), "type": "note", "created_at": AT, "contact_id": contacts[0]["id"],
            "contact": {"type": "contact", "id": contacts[0]["id"]}, "author": author("admin", priya),
            "body": "<p>Initech's account owner; renewal in March.</p>"}
    tag = {"id": number("tag:vip"), "type": "tag", "name": "VIP"}
    return {"intercom_admins": list(admins.values()), "intercom_contacts": contacts,
            "intercom_conversations": conversations, "intercom_contacts_notes": [note], "intercom_tags": [tag]}


def main() -> None:
    (HERE / "templates" / "intercom_default.json").write_text(json.dumps(build(), indent=1) + "\n")


if __name__ == "__main__":
    main()
