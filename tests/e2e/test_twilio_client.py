"""Twilio's official Python client (`twilio`), run unmodified in a sandbox, reaches the
environment's Twilio replica (a pack generated from Twilio's OpenAPI description of API v2010)
through the proxy: a text and a call are recorded, queued and never sent, listed by recipient
a page at a time (the client follows `next_page_uri`) and fetched back; a missing message is Twilio's 404; the diff shows them."""

from __future__ import annotations

from mock_services.twilio.build_seed import ACCOUNT
import pytest

from tests.conftest import ISOLATING
from tests.e2e.official_clients import run_official_client

AGENT = r'''
import json
from twilio.base.exceptions import TwilioRestException
from twilio.rest import Client

client = Client("ACCOUNT", "auth-token")
sent = client.messages.create(to="+15550100001", from_="+15550100000", body="Your code is 1234")
out = {"message": [sent.status, sent.direction, sent.sid.startswith("SM")]}
call = client.calls.create(to="+15550100002", from_="+15550100000", url="https://example.com/twiml")
out["call"] = [call.status, call.to]
out["to_john"] = sorted(m.body for m in client.messages.list(to="+15550100001", page_size=1))  # next_page_uri
out["fetched"] = client.messages(sent.sid).fetch().body
try:
    client.messages("SM" + "0" * 32).fetch()
except TwilioRestException as e:
    out["missing"] = e.status
print(json.dumps(out))
'''.replace('"ACCOUNT"', repr(ACCOUNT))

EXPECTED = {"message": ["queued", "outbound-api", True], "call": ["queued", "+15550100002"],
            "to_john": ["Hi John, your Acme onboarding starts Monday.", "Your code is 1234"],
            "fetched": "Your code is 1234", "missing": 404}


@pytest.mark.parametrize("backend", ISOLATING)
def test_twilio_python_through_the_proxy(live_stack, backend):
    run_official_client(live_stack, "twilio_default", AGENT, EXPECTED, {"api.twilio.com"},
                        ["twilio_accounts_calls", "twilio_accounts_messages"], backend)
