"""Builds templates/hubspot_default.json: Acme's HubSpot portal, whose owners are the acme
world's people (names and emails as mock_services/worlds/acme/people.json has them), with a few
customer contacts each owned by one of them, their companies and two deals. Ids are HubSpot's
numbers, drawn from a hash of what they name.

    python -m mock_services.hubspot.build_seed
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

HERE = Path(__file__).parent
PEOPLE = HERE.parent / "worlds" / "acme" / "people.json"
CREATED = "2025-06-02T08:00:00.000Z"


def number(name: str, digits: int = 11) -> str:
    return str(10 ** (digits - 1) + int(hashlib.sha256(f"acme:hubspot:{name}".encode()).hexdigest(), 16)
               % (9 * 10 ** (digits - 1)))


def record(name: str, properties: dict) -> dict:
    made = number(name)
    return {"id": made, "properties": {**properties, "hs_object_id": made, "createdate": CREATED,
                                       "lastmodifieddate": CREATED},
            "createdAt": CREATED, "updatedAt": CREATED, "archived": False}


def build() -> dict:
    people = json.loads(PEOPLE.read_text())["people"]
    owners = [{"id": number(p["email"], 8), "email": p["email"], "firstName": p["name"].split()[0],
               "lastName": p["name"].split()[-1], "userId": int(number(p["person"], 8)), "archived": False,
               "createdAt": CREATED, "updatedAt": CREATED} for p in people]
    owner = {p["person"]: o["id"] for p, o in zip(people, owners)}
    companies = [record("globex", {"name": "Globex", "domain": "globex.example.com", "industry": "MANUFACTURING",
                                   "hubspot_owner_id": owner["priya"]}),
                 record("initech", {"name": "Initech", "domain": "initech.example.com", "industry": "COMPUTER_SOFTWARE",
                                    "hubspot_owner_id": owner["john"]})]
    contacts = [record(email, {"email": email, "firstname": first, "lastname": last, "company": company,
                               "lifecyclestage": stage, "hubspot_owner_id": owner[by]})
                for email, first, last, company, stage, by in (
                    ("hank@globex.example.com", "Hank", "Scorpio", "Globex", "customer", "priya"),
                    ("peter@initech.example.com", "Peter", "Gibbons", "Initech", "lead", "john"),
                    ("samir@initech.example.com", "Samir", "Nagheenanajar", "Initech", "opportunity", "john"))]
    deals = [record("globex-renewal", {"dealname": "Globex renewal", "amount": "48000", "dealstage": "contractsent",
                                       "pipeline": "default", "hubspot_owner_id": owner["priya"]}),
             record("initech-pilot", {"dealname": "Initech pilot", "amount": "12000", "dealstage": "appointmentscheduled",
                                      "pipeline": "default", "hubspot_owner_id": owner["john"]})]
    return {"hubspot_owners": owners, "hubspot_crm_objects_contacts": contacts,
            "hubspot_crm_objects_companies": companies, "hubspot_crm_objects_0_3": deals}


def main() -> None:
    (HERE / "templates" / "hubspot_default.json").write_text(json.dumps(build(), indent=1) + "\n")


if __name__ == "__main__":
    main()
