"""Stripe's rules that a description does not say, over the generated pack: a payment intent's
states (created waiting for a payment method or a confirmation; confirm, capture and cancel
moving it on), an invoice's (draft, finalized to open, paid or voided), refunds of a payment
that succeeded, and what new products and prices are unless the request says otherwise."""

from __future__ import annotations

from typing import Any

from mock_services.rest.errors import RestError
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import Call
from mock_services.rest.openapi.credentials import issuer
from mock_services.stripe import events

DEFAULTS = {"stripe_products": {"active": True}, "stripe_prices": {"active": True},
            "stripe_customers": {"balance": 0, "delinquent": False, "invoice_prefix": None}}


def invalid(message: str, code: str = "", param: str = "") -> RestError:
    return RestError(400, code or "invalid_request", message, details={"param": param or None})


def _intent_state(body: dict, stored: dict | None = None) -> dict:
    method = body.get("payment_method") or (stored or {}).get("payment_method")
    if body.get("confirm") is True:
        if not method:
            raise invalid("You cannot confirm this PaymentIntent because it's missing a payment method.",
                          "payment_intent_unexpected_state", "payment_method")
        manual = body.get("capture_method", (stored or {}).get("capture_method")) == "manual"
        return {"status": "requires_capture" if manual else "succeeded",
                "amount_received": 0 if manual else body.get("amount", (stored or {}).get("amount", 0))}
    return {"status": "requires_confirmation" if method else "requires_payment_method"}


def create_intent(resources: Resources, call: Call) -> Any:
    body = resources.body(call)
    return resources.create(call, {"capture_method": body.get("capture_method", "automatic"),
                                   "confirmation_method": body.get("confirmation_method", "automatic"),
                                   "payment_method_types": body.get("payment_method_types", ["card"]),
                                   "amount_received": 0, **_intent_state(body)})


def _moved(resources: Resources, call: Call, allowed: set[str], changes: dict, action: str) -> Any:
    row = resources.find(call, resources.model["resources"]["stripe_payment_intents"], call.params["intent"])
    if row.get("status") not in allowed:
        raise invalid(f"This PaymentIntent's {action} could not be performed because it has a status of "
                      f"{row.get('status')}.", "payment_intent_unexpected_state")
    row = {**row, **changes}
    call.state.update("stripe_payment_intents", row)
    return resources.present(call, row, resources.response(call.operation.short_id)[1])


def confirm_intent(resources: Resources, call: Call) -> Any:
    body = resources.body(call)
    row = resources.find(call, resources.model["resources"]["stripe_payment_intents"], call.params["intent"])
    state = _intent_state({**body, "confirm": True}, row)
    extra = {"payment_method": body["payment_method"]} if body.get("payment_method") else {}
    return _moved(resources, call, {"requires_payment_method", "requires_confirmation", "requires_action"},
                  {**extra, **state}, "confirm")


def capture_intent(resources: Resources, call: Call) -> Any:
    body = resources.body(call)
    row = resources.find(call, resources.model["resources"]["stripe_payment_intents"], call.params["intent"])
    return _moved(resources, call, {"requires_capture"},
                  {"status": "succeeded", "amount_received": body.get("amount_to_capture", row.get("amount"))},
                  "capture")


def cancel_intent(resources: Resources, call: Call) -> Any:
    body = resources.body(call)
    return _moved(resources, call, {"requires_payment_method", "requires_confirmation", "requires_action",
                                    "requires_capture", "processing"},
                  {"status": "canceled", "cancellation_reason": body.get("cancellation_reason")}, "cancel")


def create_refund(resources: Resources, call: Call) -> Any:
    body = resources.body(call)
    intent_id = body.get("payment_intent")
    if not intent_id and not body.get("charge"):
        raise invalid("One of the following params should be provided for this request: payment_intent or charge.",
                      "parameter_missing")
    amount = body.get("amount")
    if intent_id:
        intent = resources.find(call, resources.model["resources"]["stripe_payment_intents"], intent_id)
        if intent.get("status") != "succeeded":
            raise invalid(f"This PaymentIntent ({intent_id}) does not have a successful charge to refund.",
                          "charge_not_refundable", "payment_intent")
        amount = amount or intent.get("amount_received") or intent.get("amount")
    return resources.create(call, {"status": "succeeded", "amount": amount or 0,
                                   "currency": body.get("currency", "usd")})


def _invoice(resources: Resources, call: Call, allowed: set[str], status: str, action: str) -> Any:
    row = resources.find(call, resources.model["resources"]["stripe_invoices"], call.params["invoice"])
    if row.get("status") not in allowed:
        raise invalid(f"Invoice is {row.get('status')}; it cannot be {action}.", "invoice_unexpected_state")
    row = {**row, "status": status, **({"paid": True} if status == "paid" else {})}
    call.state.update("stripe_invoices", row)
    return resources.present(call, row, resources.response(call.operation.short_id)[1])


def create_invoice(resources: Resources, call: Call) -> Any:
    return resources.create(call, {"status": "draft", "paid": False})


def create_endpoint(resources: Resources, call: Call) -> Any:
    """Enabled, and its signing secret answered this once (a later read has none, as Stripe's)."""
    answer = resources.create(call, {"status": "enabled", "livemode": False})
    return {**answer, "secret": events.endpoint_made(call.state, answer["id"])}


def update_endpoint(resources: Resources, call: Call) -> Any:
    """`disabled` stops its deliveries until it is enabled again."""
    disabled = resources.body(call).get("disabled")
    extra = {} if disabled is None else {"status": "disabled" if disabled in (True, "true") else "enabled"}
    return resources.update(call, extra)


HANDLERS = {
    "PostPaymentIntents": create_intent,
    "PostPaymentIntentsIntentConfirm": confirm_intent,
    "PostPaymentIntentsIntentCapture": capture_intent,
    "PostPaymentIntentsIntentCancel": cancel_intent,
    "PostRefunds": create_refund,
    "PostInvoices": create_invoice,
    "PostInvoicesInvoiceFinalize": lambda r, c: _invoice(r, c, {"draft"}, "open", "finalized"),
    "PostInvoicesInvoicePay": lambda r, c: _invoice(r, c, {"open"}, "paid", "paid"),
    "PostInvoicesInvoiceVoid": lambda r, c: _invoice(r, c, {"open"}, "void", "voided"),
    "PostWebhookEndpoints": create_endpoint,
    "PostWebhookEndpointsWebhookEndpoint": update_endpoint,
}

# Credentials: Stripe's secret key, as Stripe's examples and CLI read it.
credentials = issuer("sk_test_", {"STRIPE_API_KEY": "{token}"})
