"""SendGrid's rules that its descriptions do not say, over the generated pack: `POST
/v3/mail/send` answers 202 with no body and an `X-Message-Id`, and the message is recorded (one
row of `sendgrid_messages` per send, as it was asked for; nothing is delivered); a template is
`legacy` unless made `dynamic` and lists its versions; and SendGrid's error shape,
`{"errors": [{"message", "field", "help"}]}`."""

from __future__ import annotations

from typing import Any

from fastapi import Response

from mock_services import clock
from mock_services.rest.errors import RestError
from mock_services.rest.openapi import styles
from mock_services.rest.openapi.credentials import issuer
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import Call

DEFAULTS = {"sendgrid_templates": {"generation": "legacy", "versions": []},
            "sendgrid_teammates": {"user_type": "teammate", "is_admin": False, "scopes": []}}
MISSING = {"sendgrid_templates": "resource not found", "sendgrid_templates_versions": "resource not found",
           "sendgrid_teammates": "invalid username", "sendgrid_suppression_bounces": "resource not found"}
DYNAMIC = {"kind": "prefix", "prefix": "d-", "length": 32, "alphabet": "hex"}  # a dynamic template's id
MESSAGE_ID = {"kind": "prefix", "prefix": "", "length": 22}


def error_body(error: RestError) -> dict:
    """`{"errors": [{"message": ..., "field": ..., "help": null}]}`, as SendGrid answers."""
    return {"errors": [{"message": error.message, "field": (error.details or {}).get("param"), "help": None}]}


def send_mail(resources: Resources, call: Call) -> Response:
    """A message accepted (202): recorded with what it was asked to send, never delivered."""
    body = resources.body(call)
    people = body.get("personalizations") or []
    if not people or not any(p.get("to") for p in people):
        raise RestError(400, "invalid", "The personalizations field is required and must have at least one "
                                        "personalization.", details={"param": "personalizations"})
    if not (body.get("from") or {}).get("email"):
        raise RestError(400, "invalid", "The from object must be provided for every email send. It is an object "
                                        "that requires the email parameter, but may also contain a name parameter.",
                        details={"param": "from.email"})
    if not body.get("template_id") and not body.get("content") and not body.get("subject") and \
            not any(p.get("subject") for p in people):
        raise RestError(400, "invalid", "The subject is required. You can get around this requirement if you use a "
                                        "template with a subject defined or if every personalization has a subject "
                                        "defined.", details={"param": "subject"})
    made = styles.new_id(MESSAGE_ID, {r["id"] for r in call.state.rows("sendgrid_messages")})
    to = [t["email"] for p in people for t in p.get("to") or []]
    call.state.insert("sendgrid_messages", {
        "id": made, "from": body["from"], "to": to, "subject": body.get("subject") or people[0].get("subject"),
        "content": body.get("content") or [], "template_id": body.get("template_id"),
        "personalizations": people, "status": "processed",
        "created": clock.utcnow().replace(microsecond=0).isoformat().replace("+00:00", "Z")})
    return Response(status_code=202, headers={**call.response_headers, "X-Message-Id": made})


def create_template(resources: Resources, call: Call) -> Any:
    """A dynamic template's id is `d-` and 32 hex digits; a legacy one's a uuid (the description
    calls both uuids)."""
    if resources.body(call).get("generation") != "dynamic":
        return resources.create(call)
    taken = {r["id"] for r in call.state.rows("sendgrid_templates")}
    return resources.create(call, {"id": styles.new_id(DYNAMIC, taken)})


HANDLERS: dict[str, Any] = {"SendMail": send_mail, "CreateTemplate": create_template}

# Credentials: what SendGridAPIClient(os.environ["SENDGRID_API_KEY"]) is given.
credentials = issuer("SG.", {"SENDGRID_API_KEY": "{token}"})
