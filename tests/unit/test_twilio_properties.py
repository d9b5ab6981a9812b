"""Twilio's generated pack against Twilio's description (tests/unit/openapi_properties.py):
accounts, messages and calls."""

from tests.unit.openapi_properties import property_test

# Twilio answers its page URIs from its root (its client prefixes its host), not as the absolute
# URIs the description's `format: uri` asks for.
test_twilio_answers_as_its_description_says = property_test(
    "twilio", examples=6, relative=("uri", "first_page_uri", "next_page_uri", "previous_page_uri"))
