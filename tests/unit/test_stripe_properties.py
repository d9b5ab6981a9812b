"""Stripe's generated pack against Stripe's description (tests/unit/openapi_properties.py): the
families an agent's basic work touches, each operation of their collections and items."""

from tests.unit.openapi_properties import property_test

test_stripe_answers_as_its_description_says = property_test(
    "stripe", examples=6, paths=r"^/v1/(customers|products|prices|payment_intents|refunds|invoices)(/\{[^/]+\})?$")
