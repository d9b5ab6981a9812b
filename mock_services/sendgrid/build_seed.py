"""Builds templates/sendgrid_default.json: Acme's SendGrid account. The acme world's people
(mock_services/worlds/acme/people.json) are its teammates (emails kept, John the admin), it has
two dynamic templates (a welcome mail and the checkout incident notice, each with an active
version), one message already sent to a customer, and one bounced address.

    python -m mock_services.sendgrid.build_seed
"""

from __future__ import annotations

import hashlib
import json
import uuid
from pathlib import Path

HERE = Path(__file__).parent
PEOPLE = HERE.parent / "worlds" / "acme" / "people.json"
AT = "2026-01-05 09:00:00"


def uid(name: str) -> str:
    return str(uuid.UUID(hashlib.sha256(f"acme:sendgrid:{name}".encode()).hexdigest()[:32]))


def template(name: str, subject: str, html: str) -> tuple[dict, dict]:
    made = "d-" + uid(name).replace("-", "")
    version = {"id": uid(f"{name}:v1"), "template_id": made, "active": 1, "name": f"{name} v1", "subject": subject,
               "html_content": html, "plain_content": "", "generate_plain_content": True, "editor": "code",
               "updated_at": AT, "thumbnail_url": ""}
    lean = {k: version[k] for k in ("id", "template_id", "active", "name", "subject", "updated_at", "editor",
                                    "generate_plain_content", "html_content", "plain_content", "thumbnail_url")}
    return {"id": made, "name": name, "generation": "dynamic", "updated_at": AT, "versions": [lean]}, version


def build() -> dict:
    people = json.loads(PEOPLE.read_text())["people"]
    teammates = [{"id": p["person"], "username": p["person"], "email": p["email"],
                  "first_name": p["name"].split()[0], "last_name": p["name"].split()[-1],
                  "user_type": "admin" if p["person"] == "john" else "teammate", "is_admin": p["person"] == "john",
                  "scopes": ["mail.send", "templates.read", "templates.create", "templates.update"]} for p in people]
    welcome, welcome_v1 = template("Welcome", "Welcome to Acme, {{first_name}}",
                                   "<p>Hi {{first_name}}, welcome to Acme.</p>")
    notice, notice_v1 = template("Checkout incident notice", "Checkout issue: {{status}}",
                                 "<p>We are fixing an issue with large carts at checkout (ENG-5): {{status}}.</p>")
    sent = {"id": "acmeWelcome00000000001", "from": {"email": "support@example.com", "name": "Acme Support"},
            "to": ["peter@initech.example.com"], "subject": None, "content": [], "template_id": welcome["id"],
            "personalizations": [{"to": [{"email": "peter@initech.example.com"}],
                                  "dynamic_template_data": {"first_name": "Peter"}}],
            "status": "delivered", "created": "2026-01-05T09:00:00Z"}
    bounce = {"id": "old-address@initech.example.com", "email": "old-address@initech.example.com",
              "created": 1767603600, "reason": "550 5.1.1 The email account that you tried to reach does not exist",
              "status": "5.1.1"}
    return {"sendgrid_teammates": teammates, "sendgrid_templates": [welcome, notice],
            "sendgrid_templates_versions": [welcome_v1, notice_v1], "sendgrid_messages": [sent],
            "sendgrid_suppression_bounces": [bounce]}


def main() -> None:
    (HERE / "templates" / "sendgrid_default.json").write_text(json.dumps(build(), indent=1) + "\n")


if __name__ == "__main__":
    main()
