"""Zendesk's generated pack against Zendesk's Support API description
(tests/unit/openapi_properties.py): tickets, their comments, users and organizations."""

from tests.unit.openapi_properties import property_test

test_zendesk_answers_as_its_description_says = property_test("zendesk", examples=6)
