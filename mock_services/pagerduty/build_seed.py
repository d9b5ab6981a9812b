"""Builds templates/pagerduty_default.json: Acme's PagerDuty account. The acme world's people
(mock_services/worlds/acme/people.json) are its users (emails kept), engineering is a team with
an escalation policy, the checkout API and the web app are services, and the checkout API has
two incidents: one resolved, one triggered and assigned to Robert, with a note. Ids have
PagerDuty's shape (`P` and six capitals or digits), drawn from a hash of what they name.

    python -m mock_services.pagerduty.build_seed
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

HERE = Path(__file__).parent
PEOPLE = HERE.parent / "worlds" / "acme" / "people.json"
AT = "2026-01-05T09:00:00Z"
ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
API, WEB = "https://api.pagerduty.com", "https://acme.pagerduty.com"


def pd_id(name: str) -> str:
    digest = hashlib.sha256(f"acme:pagerduty:{name}".encode()).digest()
    return "P" + "".join(ALPHABET[b % 36] for b in digest[:6])


def ref(kind: str, row: dict) -> dict:
    return {"id": row["id"], "type": f"{kind}_reference", "summary": row["summary"],
            "self": f"{API}/{kind}s/{row['id']}", "html_url": f"{WEB}/{kind}s/{row['id']}"}


def obj(kind: str, key: str, summary: str, **fields: object) -> dict:
    made = pd_id(f"{kind}:{key}")
    return {"id": made, "type": kind, "summary": summary, "self": f"{API}/{kind}s/{made}",
            "html_url": f"{WEB}/{kind}s/{made}", **fields}


def build() -> dict:
    people = json.loads(PEOPLE.read_text())["people"]
    users = {p["person"]: obj("user", p["email"], p["name"], name=p["name"], email=p["email"], job_title=p["title"],
                              role="admin" if p["person"] == "john" else "user", time_zone="Europe/London",
                              color="green", description=None, teams=[], contact_methods=[], notification_rules=[])
             for p in people}
    team = obj("team", "engineering", "Engineering", name="Engineering", description="Acme's engineers")
    for person in ("john", "robert", "yuki"):
        users[person]["teams"] = [ref("team", team)]
    policy = obj("escalation_policy", "engineering", "Engineering on call", name="Engineering on call", num_loops=1,
                 on_call_handoff_notifications="if_has_services", teams=[ref("team", team)], services=[],
                 escalation_rules=[{"id": pd_id("rule:1"), "escalation_delay_in_minutes": 30, "targets": [
                     ref("user", users["robert"])]}, {"id": pd_id("rule:2"), "escalation_delay_in_minutes": 30,
                                                      "targets": [ref("user", users["john"])]}])
    services = [obj("service", name, name, name=name, description=about, status="active", created_at=AT,
                    escalation_policy=ref("escalation_policy", policy), teams=[ref("team", team)],
                    auto_resolve_timeout=14400, acknowledgement_timeout=1800, alert_creation="create_alerts_and_incidents")
                for name, about in (("Checkout API", "Payments and checkout (ENG-5 lives here)"),
                                    ("Web app", "acme.example.com"))]
    policy["services"] = [ref("service", s) for s in services]
    checkout = services[0]
    incidents = []
    for number, (title, status, who) in enumerate((("Checkout latency above 2 s", "resolved", "john"),
                                                   ("Checkout returns 500 for carts over 50 items (ENG-5)", "triggered",
                                                    "robert")), start=1):
        incidents.append(obj("incident", title, f"[#{number}] {title}", incident_number=number, title=title,
                             status=status, urgency="high", created_at=AT, updated_at=AT,
                             incident_key=hashlib.sha256(title.encode()).hexdigest()[:32],
                             service=ref("service", checkout), escalation_policy=ref("escalation_policy", policy),
                             assignments=[{"at": AT, "assignee": ref("user", users[who])}] if status != "resolved"
                             else [], acknowledgements=[], teams=[ref("team", team)]))
    note = {"id": pd_id("note:1"), "incidents_id": incidents[1]["id"], "created_at": AT,
            "user": ref("user", users["robert"]), "content": "Looking into it: the cart query stops at 50 items "
                                                             "and checkout then fails."}
    return {"pagerduty_users": list(users.values()), "pagerduty_teams": [team],
            "pagerduty_escalation_policies": [policy], "pagerduty_services": services,
            "pagerduty_incidents": incidents, "pagerduty_incidents_notes": [note]}


def main() -> None:
    (HERE / "templates" / "pagerduty_default.json").write_text(json.dumps(build(), indent=1) + "\n")


if __name__ == "__main__":
    main()
