"""Builds templates/twilio_default.json: Acme's Twilio account and the texts it sent the acme
world's people (names as mock_services/worlds/acme/people.json has them; the people have no
phone numbers there, so each gets one of the 555-01xx numbers reserved for fiction). Sids are
Twilio's shapes (two letters and 32 hex digits), drawn from a hash of what they name.

    python -m mock_services.twilio.build_seed
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

HERE = Path(__file__).parent
PEOPLE = HERE.parent / "worlds" / "acme" / "people.json"
ACCOUNT = "AC" + hashlib.sha256(b"acme:twilio:account").hexdigest()[:32]
SENT = "Mon, 02 Jun 2025 09:00:00 +0000"
FROM = "+15550100000"


def sid(prefix: str, name: str) -> str:
    return prefix + hashlib.sha256(f"acme:twilio:{name}".encode()).hexdigest()[:32]


def build() -> dict:
    people = [p for p in json.loads(PEOPLE.read_text())["people"] if p["person"] != "agent"]
    account = {"id": ACCOUNT, "sid": ACCOUNT, "friendly_name": "Acme", "status": "active", "type": "Full",
               "owner_account_sid": ACCOUNT, "auth_token": "", "date_created": SENT, "date_updated": SENT,
               "uri": f"/2010-04-01/Accounts/{ACCOUNT}.json", "subresource_uris": {}}
    messages = []
    for number, person in enumerate(people, start=1):
        message_sid = sid("SM", person["email"])
        messages.append({
            "id": message_sid, "sid": message_sid, "account_sid": ACCOUNT,
            "from": FROM, "to": f"+155501{number:05d}"[:12], "body": f"Hi {person['name'].split()[0]}, your Acme "
                                                                      "onboarding starts Monday.",
            "status": "delivered", "direction": "outbound-api", "num_segments": "1", "num_media": "0",
            "api_version": "2010-04-01", "date_created": SENT, "date_updated": SENT, "date_sent": SENT,
            "price": "-0.00790", "price_unit": "USD",
            "uri": f"/2010-04-01/Accounts/{ACCOUNT}/Messages/{message_sid}.json"})
    return {"twilio_accounts": [account], "twilio_accounts_messages": messages, "twilio_accounts_calls": []}


def main() -> None:
    (HERE / "templates" / "twilio_default.json").write_text(json.dumps(build(), indent=1) + "\n")


if __name__ == "__main__":
    main()
