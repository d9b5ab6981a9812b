"""Builds templates/stripe_default.json: Acme's Stripe account, whose customers are the acme
world's people (names and emails as mock_services/worlds/acme/people.json has them), two
products with prices, a payment that succeeded and a draft invoice. Ids are Stripe's shapes,
drawn from a hash of what they name, so a rebuild writes the same file.

    python -m mock_services.stripe.build_seed
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

HERE = Path(__file__).parent
PEOPLE = HERE.parent / "worlds" / "acme" / "people.json"
ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
CREATED = 1748851200  # 2025-06-02T08:00:00Z


def stripe_id(prefix: str, name: str, length: int = 14) -> str:
    digest = hashlib.sha256(f"acme:{prefix}:{name}".encode()).digest()
    return prefix + "".join(ALNUM[b % len(ALNUM)] for b in digest[:length])


def build() -> dict:
    people = json.loads(PEOPLE.read_text())["people"]
    customers = [{"id": stripe_id("cus_", p["email"]), "object": "customer", "email": p["email"], "name": p["name"],
                  "description": p["title"], "created": CREATED + i * 3600, "livemode": False, "balance": 0,
                  "delinquent": False, "currency": "usd", "metadata": {"person": p["person"]}}
                 for i, p in enumerate(people) if p["person"] != "agent"]
    products = [{"id": stripe_id("prod_", name), "object": "product", "name": name, "active": True,
                 "created": CREATED, "updated": CREATED, "livemode": False, "images": [], "metadata": {}}
                for name in ("Acme Team plan", "Acme Onboarding workshop")]
    prices = [{"id": stripe_id("price_", products[0]["id"], 24), "object": "price", "product": products[0]["id"],
               "active": True, "currency": "usd", "unit_amount": 4900, "type": "recurring",
               "recurring": {"interval": "month", "interval_count": 1, "usage_type": "licensed"},
               "billing_scheme": "per_unit", "created": CREATED, "livemode": False, "metadata": {}},
              {"id": stripe_id("price_", products[1]["id"], 24), "object": "price", "product": products[1]["id"],
               "active": True, "currency": "usd", "unit_amount": 150000, "type": "one_time",
               "billing_scheme": "per_unit", "created": CREATED, "livemode": False, "metadata": {}}]
    priya = next(c for c in customers if c["email"] == "priya@example.com")
    john = next(c for c in customers if c["email"] == "john@example.com")
    intents = [{"id": stripe_id("pi_", "workshop", 24), "object": "payment_intent", "amount": 150000,
                "amount_received": 150000, "currency": "usd", "customer": priya["id"], "status": "succeeded",
                "payment_method": stripe_id("pm_", "priya-card", 24), "payment_method_types": ["card"],
                "capture_method": "automatic", "confirmation_method": "automatic", "created": CREATED + 86400,
                "livemode": False, "description": "Onboarding workshop", "metadata": {}}]
    invoices = [{"id": stripe_id("in_", "john-team", 24), "object": "invoice", "customer": john["id"],
                 "status": "draft", "paid": False, "currency": "usd", "amount_due": 4900, "amount_paid": 0,
                 "created": CREATED + 2 * 86400, "livemode": False, "metadata": {}}]
    return {"stripe_customers": customers, "stripe_products": products, "stripe_prices": prices,
            "stripe_payment_intents": intents, "stripe_invoices": invoices}


def main() -> None:
    (HERE / "templates" / "stripe_default.json").write_text(json.dumps(build(), indent=1) + "\n")


if __name__ == "__main__":
    main()
