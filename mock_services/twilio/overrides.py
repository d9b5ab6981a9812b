"""Twilio's defaults that its description does not say, over the generated pack: a message or
call the API makes is outbound and queued. Nothing is ever sent or dialled: the replica records
it, and the environment's diff shows it."""

from mock_services.rest.openapi.credentials import issuer

DEFAULTS = {"twilio_accounts_messages": {"direction": "outbound-api", "status": "queued", "num_segments": "1",
                                         "num_media": "0", "api_version": "2010-04-01"},
            "twilio_accounts_calls": {"direction": "outbound-api", "status": "queued", "api_version": "2010-04-01"},
            "twilio_accounts": {"status": "active", "type": "Full"}}
MISSING = {table: "The requested resource {key} was not found" for table in
           ("twilio_accounts", "twilio_accounts_messages", "twilio_accounts_calls")}

# Credentials: what twilio.rest.Client() reads when given nothing.
credentials = issuer("", {"TWILIO_ACCOUNT_SID": "{user[sid]}", "TWILIO_AUTH_TOKEN": "{token}"})
