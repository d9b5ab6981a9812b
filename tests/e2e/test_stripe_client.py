"""Stripe's official Python client (`stripe`; and its Node client, npm `stripe`), run unmodified in a sandbox, reaches the
environment's Stripe replica (a pack generated from Stripe's OpenAPI description) through the
proxy: customers, products, prices and payment intents made, listed and read back, a refund of
a confirmed payment, Stripe's own errors for a missing customer and an unknown parameter; the
diff shows what it changed."""

from __future__ import annotations

import json

import pytest

from tests.conftest import ISOLATING
from tests.e2e.official_clients import run_node_client, run_official_client

AGENT = r'''
import json
import stripe

stripe.api_key = "sk_test_detour"
out = {}
customer = stripe.Customer.create(email="dana@example.com", name="Dana Lee", metadata={"plan": "team"})
product = stripe.Product.create(name="Detour seat")
price = stripe.Price.create(product=product.id, unit_amount=1500, currency="usd")
intent = stripe.PaymentIntent.create(amount=1500, currency="usd", customer=customer.id)
out["intent"] = [intent.status, intent.id.startswith("pi_")]
paid = stripe.PaymentIntent.create(amount=2500, currency="usd", customer=customer.id,
                                   payment_method="pm_card_visa", confirm=True)
out["paid"] = paid.status
refund = stripe.Refund.create(payment_intent=paid.id)
out["refund"] = [refund.status, refund.amount]
out["emails"] = [c.email for c in stripe.Customer.list(limit=3)]
out["all"] = len([c for c in stripe.Customer.list(limit=2).auto_paging_iter()])
again = stripe.Customer.retrieve(customer.id)
out["again"] = [again.name, again.metadata["plan"], customer.id.startswith("cus_")]
out["price"] = [stripe.Price.retrieve(price.id).unit_amount, price.product == product.id]
expanded = stripe.PaymentIntent.retrieve(intent.id, expand=["customer"])
out["expanded"] = expanded.customer.email
out["by_email"] = [c.id == customer.id for c in stripe.Customer.list(email="dana@example.com")]
try:
    stripe.Customer.retrieve("cus_missing")
except stripe.InvalidRequestError as e:
    out["missing"] = [e.http_status, e.code]
try:
    stripe.Customer.create(favourite_colour="teal")
except stripe.InvalidRequestError as e:
    out["unknown"] = [e.http_status, e.param]
print(json.dumps(out))
'''

EXPECTED = {"intent": ["requires_payment_method", True], "paid": "succeeded", "refund": ["succeeded", 2500],
            "emails": ["dana@example.com", "priya@example.com", "yuki@example.com"], "all": 6,
            "again": ["Dana Lee", "team", True], "price": [1500, True], "expanded": "dana@example.com",
            "by_email": [True], "missing": [404, "resource_missing"], "unknown": [400, "favourite_colour"]}


@pytest.mark.parametrize("backend", ISOLATING)
def test_stripe_python_through_the_proxy(live_stack, backend):
    result = run_official_client(live_stack, "stripe_default", AGENT, EXPECTED, {"api.stripe.com"}, [
        "stripe_customers", "stripe_payment_intents", "stripe_payment_intents", "stripe_prices", "stripe_products",
        "stripe_refunds"], backend)
    dana = next(row for row in result.diff.inserts if row["__table__"] == "stripe_customers")
    assert (dana["email"], dana["metadata"]) == ("dana@example.com", {"plan": "team"})


NODE_AGENT = r'''
import Stripe from "stripe";
const stripe = new Stripe("sk_test_detour");
const customer = await stripe.customers.create({ email: "noor@example.com", name: "Noor", metadata: { plan: "solo" } });
const product = await stripe.products.create({ name: "Detour seat" });
const price = await stripe.prices.create({ product: product.id, unit_amount: 900, currency: "usd" });
const intent = await stripe.paymentIntents.create({ amount: 900, currency: "usd", customer: customer.id,
                                                    payment_method: "pm_card_visa", confirm: true });
const listed = await stripe.customers.list({ limit: 2 });
const out = { intent: intent.status, price: (await stripe.prices.retrieve(price.id)).unit_amount,
              listed: listed.data.map((c) => c.email), more: listed.has_more };
try {
  await stripe.customers.retrieve("cus_missing");
} catch (e) {
  out.missing = [e.statusCode, e.code];
}
console.log(JSON.stringify(out));
'''


@pytest.mark.parametrize("backend", ISOLATING)
def test_stripe_node_through_the_proxy(live_stack, backend, request):
    """Stripe's official Node client (npm `stripe`), unmodified: on docker from the image derived
    from tests/node_clients, as a user would."""
    result = run_node_client(live_stack, request, backend, "stripe", NODE_AGENT, "stripe_default")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == {"intent": "succeeded", "price": 900, "more": True,
                                         "listed": ["noor@example.com", "priya@example.com"],
                                         "missing": [404, "resource_missing"]}
    assert {r.host for r in result.requests} == {"api.stripe.com"}
    assert sorted(row["__table__"] for row in result.diff.inserts) == [
        "stripe_customers", "stripe_payment_intents", "stripe_prices", "stripe_products"]
