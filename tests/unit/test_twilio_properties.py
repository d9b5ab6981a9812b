"""Twilio's generated pack against Twilio's description (tests/unit/openapi_properties.py):
accounts, messages and calls."""

from tests.unit.openapi_properties import property_test

test_twilio_answers_as_its_description_says = property_test("twilio", examples=6)
