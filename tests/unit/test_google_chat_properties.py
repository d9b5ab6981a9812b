"""Google Chat (generated from the discovery document google-api-python-client ships) against
its own description (tests/unit/openapi_properties.py), on a small sample."""

from tests.unit.openapi_properties import property_test

test_chat_answers_as_its_description_says = property_test("chat", examples=2, coverage=False)
